package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A run's item in the runs table: its attribute names, its key, and the mapping both ways. */
public final class RunItems {
    static final String OWNER = Resources.OWNER;
    static final String SCHEDULED_AT = "scheduledAt";
    static final String STATE = "state";
    static final String ATTEMPT = "attempt";
    static final String MAX_ATTEMPTS = "maxAttempts";
    static final String LEASE_OWNER = "leaseOwner";
    static final String LEASE_EXPIRY = "leaseExpiry";
    static final String EXIT_CODE = "exitCode";
    static final String STARTED_AT = "startedAt";
    static final String FINISHED_AT = "finishedAt";
    static final String ERROR = "error";
    static final String LOG_KEY = "logKey";
    /** A small log's text, kept on the run instead of in S3 (then there is no {@code logKey}). */
    static final String LOG = "log";

    static final String CREATED_AT = "createdAt";
    static final String UPDATED_AT = "updatedAt";
    static final String QUEUED_AT = "queuedAt";
    static final String OCCURRENCE = "occurrence";
    /** When the current attempt's executor was about to start the binary (absent: it never got that far). */
    static final String LAUNCHED_AT = "launchedAt";
    /** How many attempts were given back unlaunched ({@link Transition#GIVE_BACK}); absent: none. */
    static final String GIVEN_BACK = "givenBack";
    /** A triggered run's own command line ({@link Overrides}); absent on every other run. */
    static final String ARGS = "args";

    static final String ENV = "env";

    /** Why a run not running yet waits ({@link Run#waiting}); removed by its claim. */
    static final String WAITING = "waiting";

    /** A triggered or backfilled run's own lane ({@link Overrides#priority}); absent: its job's. */
    static final String PRIORITY = "priority";

    /**
     * An earlier attempt's facts, one attribute each ({@code past_1}, {@code past_2}, …), written by the claim that
     * replaces them ({@link RunHistory}). Top-level attributes, not a list: an update can set one without the item
     * having a list to append to (PartiQL has no {@code if_not_exists}), so runs written before them need nothing.
     */
    static final String PAST = "past_";

    /** When the run was last retried by hand ({@link Transition#REDRIVE}); absent: never. */
    static final String REDRIVEN_AT = "redrivenAt";

    private static final String P_STARTED = "startedAt";
    private static final String P_FINISHED = "finishedAt";
    private static final String P_EXIT = "exitCode";
    private static final String P_ERROR = "error";
    private static final String P_EXECUTOR = "executorId";

    /** Longer errors are cut when archived: the run's latest attempt keeps its whole. */
    private static final int PAST_ERROR_CHARS = 300;

    private RunItems() {}

    static Map<String, AttributeValue> key(String jobId, String runId) {
        return Map.of(Resources.JOB_ID, s(jobId), Resources.RUN_ID, s(runId));
    }

    /** A new SCHEDULED run's item, without its due-index entry. */
    static Map<String, AttributeValue> scheduled(Run run) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(Resources.JOB_ID, s(run.jobId()));
        item.put(Resources.RUN_ID, s(run.runId()));
        item.put(OWNER, s(run.owner()));
        item.put(Resources.OWNER_SHARD, s(RunSearch.shard(run.owner(), run.jobId())));
        item.put(SCHEDULED_AT, instant(run.scheduledAt()));
        if (!run.occurrence().equals(run.scheduledAt())) {
            item.put(OCCURRENCE, instant(run.occurrence()));
        }
        item.put(STATE, s(RunState.SCHEDULED.name()));
        item.put(ATTEMPT, n(0));
        item.put(MAX_ATTEMPTS, n(run.maxAttempts()));
        item.put(CREATED_AT, instant(run.createdAt()));
        item.put(UPDATED_AT, instant(run.createdAt()));
        if (run.overrides().args() != null) {
            item.put(ARGS, Items.strings(run.overrides().args()));
        }
        if (!run.overrides().env().isEmpty()) {
            item.put(ENV, Items.stringMap(run.overrides().env()));
        }
        if (run.overrides().priority() != null) {
            item.put(PRIORITY, s(run.overrides().priority().name()));
        }
        return item;
    }

    /** The run an item holds; null for no item (a lost write that found none). */
    public static Run fromItem(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return null;
        }
        Long lease = Items.longValue(item, LEASE_EXPIRY);
        return new Run(
                Items.str(item, Resources.JOB_ID),
                Items.str(item, Resources.RUN_ID),
                Items.str(item, OWNER),
                Items.instant(item, SCHEDULED_AT),
                RunState.valueOf(Items.str(item, STATE)),
                Items.integer(item, ATTEMPT),
                Items.integer(item, MAX_ATTEMPTS),
                Items.str(item, LEASE_OWNER),
                lease == null ? null : Instant.ofEpochMilli(lease),
                Items.integer(item, EXIT_CODE),
                Items.instant(item, STARTED_AT),
                Items.instant(item, FINISHED_AT),
                Items.str(item, ERROR),
                Items.str(item, LOG_KEY),
                Items.str(item, LOG),
                Items.instant(item, CREATED_AT),
                Items.instant(item, OCCURRENCE),
                Items.instant(item, QUEUED_AT),
                Items.instant(item, LAUNCHED_AT),
                item.containsKey(ARGS) || item.containsKey(ENV) || item.containsKey(PRIORITY)
                        ? new Overrides(
                                item.containsKey(ARGS) ? Items.strings(item, ARGS) : null,
                                item.containsKey(ENV) ? Items.stringMap(item, ENV) : Map.of(),
                                item.containsKey(PRIORITY) ? Priority.valueOf(Items.str(item, PRIORITY)) : null)
                        : Overrides.NONE,
                Items.str(item, WAITING),
                history(item));
    }

    /** An ended attempt's facts, kept as {@code past_<attempt>} ({@link RunHistory.PastAttempt}). */
    static AttributeValue past(Instant started, Instant finished, Integer exitCode, String error, String executor) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        if (started != null) {
            m.put(P_STARTED, instant(started));
        }
        if (finished != null) {
            m.put(P_FINISHED, instant(finished));
        }
        if (exitCode != null) {
            m.put(P_EXIT, n(exitCode));
        }
        if (error != null) {
            m.put(P_ERROR, s(error.length() > PAST_ERROR_CHARS ? error.substring(0, PAST_ERROR_CHARS) + "…" : error));
        }
        if (executor != null) {
            m.put(P_EXECUTOR, s(executor));
        }
        return AttributeValue.fromM(m);
    }

    private static RunHistory history(Map<String, AttributeValue> item) {
        List<RunHistory.PastAttempt> past = new ArrayList<>();
        item.forEach((name, value) -> {
            if (name.startsWith(PAST) && value.hasM()) {
                Map<String, AttributeValue> m = value.m();
                past.add(new RunHistory.PastAttempt(
                        Integer.parseInt(name.substring(PAST.length())),
                        Items.instant(m, P_STARTED),
                        Items.instant(m, P_FINISHED),
                        Items.integer(m, P_EXIT),
                        Items.str(m, P_ERROR),
                        Items.str(m, P_EXECUTOR)));
            }
        });
        Instant redriven = Items.instant(item, REDRIVEN_AT);
        return past.isEmpty() && redriven == null ? RunHistory.NONE : new RunHistory(past, redriven);
    }
}
