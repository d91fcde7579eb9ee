package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.job.JobItems.FIRING;
import static dev.punctual.core.job.JobItems.NEXT_RUN_AT;
import static dev.punctual.core.job.JobItems.PAUSED_AT;
import static dev.punctual.core.job.JobItems.PAUSE_NOTE;
import static dev.punctual.core.job.JobItems.PENDING;
import static dev.punctual.core.job.JobItems.STATE;
import static dev.punctual.core.job.JobItems.UPDATED_AT;
import static dev.punctual.core.job.JobItems.VERSION;

import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What {@link JobRepository}'s expressions are made of: the clauses several of its writes share, and the
 * placeholders ({@code #st} is the job's state attribute, {@code :active} the ACTIVE state, and so on). The
 * placeholders are read off each expression, so that each request carries exactly the names and values it uses
 * (DynamoDB refuses unused ones), and a placeholder with no attribute is a programming error found at once.
 */
final class JobExpressions {
    private JobExpressions() {}

    /**
     * The condition that the job's pending run is still {@code expectedPending} (null: it has none), i.e. the one the
     * caller read, so the run it cancels in the same transaction is the right one.
     */
    static String pendingIs(String expectedPending, Map<String, AttributeValue> values) {
        if (expectedPending == null) {
            return "attribute_not_exists(#p)";
        }
        values.put(":pending", s(expectedPending));
        return "#p = :pending";
    }

    /** The update clause that makes {@code runId}, due at {@code at}, the job's pending run. */
    static String pendingTo(String runId, Instant at, Map<String, AttributeValue> values) {
        values.put(":next", s(runId));
        values.put(":nextAt", instant(at));
        return "#p = :next, #n = :nextAt";
    }

    /** A user's change to the job: a new version, stamped now. */
    static final String BUMP = "#v = #v + :one, #u = :now";

    /** The values every change by the job's owner names: the owner, now, and the version step of {@link #BUMP}. */
    static Map<String, AttributeValue> ownerAt(String owner, Instant now) {
        return new HashMap<>(Map.of(":owner", s(owner), ":now", instant(now), ":one", n(1)));
    }

    /** The job attribute behind each name placeholder that the jobs table's expressions use. */
    static final Map<String, String> PLACEHOLDERS = Map.ofEntries(
            Map.entry("#id", Resources.JOB_ID),
            Map.entry("#o", Resources.OWNER),
            Map.entry("#b", Resources.BINARY_ID),
            Map.entry("#st", STATE),
            Map.entry("#v", VERSION),
            Map.entry("#u", UPDATED_AT),
            Map.entry("#p", PENDING),
            Map.entry("#n", NEXT_RUN_AT),
            Map.entry("#pa", PAUSED_AT),
            Map.entry("#f", FIRING),
            Map.entry("#mc", JobItems.MAX_CONCURRENCY),
            Map.entry("#pn", PAUSE_NOTE));

    static final Pattern NAME_PLACEHOLDER = Pattern.compile("#[a-z][a-z0-9]*");
    static final Pattern STATE_VALUE = Pattern.compile(":(active|completed|paused|deleted)\\b");

    static Map<String, String> namesIn(String expressions) {
        return namesIn(expressions, Map.of());
    }

    static Map<String, String> namesIn(String expressions, Map<String, String> computed) {
        Map<String, String> names = new HashMap<>();
        NAME_PLACEHOLDER.matcher(expressions).results().map(MatchResult::group).forEach(p -> {
            String attribute = computed.getOrDefault(p, PLACEHOLDERS.get(p));
            if (attribute == null) {
                throw new IllegalArgumentException("no job attribute for placeholder " + p);
            }
            names.put(p, attribute);
        });
        return names;
    }

    /** {@code values} plus each job state the expressions compare with ({@code :active} is ACTIVE, …). */
    static Map<String, AttributeValue> withStates(String expressions, Map<String, AttributeValue> values) {
        Map<String, AttributeValue> all = new HashMap<>(values);
        STATE_VALUE
                .matcher(expressions)
                .results()
                .forEach(m -> all.put(
                        m.group(),
                        s(JobState.valueOf(m.group(1).toUpperCase(Locale.ROOT)).name())));
        return all;
    }
}
