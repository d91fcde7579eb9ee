package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Jitter;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A job as an item of the jobs table and back: the attribute names and how each field is stored. The expressions
 * that read and write these attributes are {@link JobRepository}'s.
 */
final class JobItems {
    static final String NAME = "name";
    static final String BINARY_SHA = "binarySha256";
    static final String ARGS = "args";
    static final String ENV = "env";
    static final String SCHEDULE = "schedule";
    static final String TIMEOUT = "timeoutSeconds";
    static final String MAX_ATTEMPTS = "maxAttempts";
    static final String NO_RETRY_CODES = "nonRetryableExitCodes";
    static final String STATE = "state";
    static final String VERSION = "version";
    static final String CREATED_AT = "createdAt";
    static final String UPDATED_AT = "updatedAt";
    static final String PENDING = "pendingRunId";
    static final String NEXT_RUN_AT = "nextRunAt";
    static final String PAUSED_AT = "pausedAt";
    static final String FIRING = "firing";
    static final String ACTIVE_RUN = "activeRunId";
    /** In the firing map: how many of the job's runs may run at once ({@code FiringPolicy#maxConcurrency}). */
    static final String MAX_CONCURRENCY = "maxConcurrency";

    /** In the firing map: the lane of the job's runs ({@code FiringPolicy#priority}). */
    static final String PRIORITY = "priority";

    /**
     * The attribute of the job's concurrency slot {@code i}: the run most recently claimed in it. Slot 0 is
     * {@value #ACTIVE_RUN}, the one slot a job had before limits, so that items written then read the same; slot
     * {@code i > 0} is {@code activeRunId<i>}.
     */
    static String slotAttribute(int i) {
        return i == 0 ? ACTIVE_RUN : ACTIVE_RUN + i;
    }

    /** The runs in the job's slots, by slot (null: empty), up to its last taken one. */
    private static List<String> activeRuns(Map<String, AttributeValue> item) {
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < FiringPolicy.MAX_CONCURRENCY_LIMIT; i++) {
            runs.add(Items.str(item, slotAttribute(i)));
        }
        while (!runs.isEmpty() && runs.getLast() == null) {
            runs.removeLast();
        }
        return runs;
    }

    static final String SECRET_NAMES = "secretNames";
    static final String LIMITS = "limits";
    static final String LABELS = "labels";
    static final String PAUSE_NOTE = "pauseNote";
    static final String WEBHOOK = "webhook";
    static final String EXPECT = "expect";

    private JobItems() {}

    /** The whole item of a new job. */
    static Map<String, AttributeValue> toItem(Job job) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(Resources.JOB_ID, s(job.id()));
        item.put(Resources.OWNER, s(job.owner()));
        item.put(Resources.OWNER_SORT, s(Instants.fixed(job.createdAt()) + "#" + job.id()));
        item.putAll(definition(job));
        item.put(STATE, s(job.state().name()));
        item.put(VERSION, n(job.version()));
        item.put(CREATED_AT, instant(job.createdAt()));
        item.put(UPDATED_AT, instant(job.updatedAt()));
        if (job.pendingRunId() != null) {
            item.put(PENDING, s(job.pendingRunId()));
            item.put(NEXT_RUN_AT, instant(job.nextRunAt()));
        }
        return item;
    }

    /**
     * The attributes that hold a job's definition (what its owner gave, and a {@code PUT} replaces whole), with
     * their values; each of {@link #OPTIONAL_DEFINITION} is absent when empty. The new job's item and the
     * replacement's update are both written from it, so a new field of the definition is stored in one place.
     */
    static Map<String, AttributeValue> definition(Job job) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(NAME, s(job.name()));
        item.put(Resources.BINARY_ID, s(job.binaryId()));
        item.put(BINARY_SHA, s(job.binarySha256()));
        item.put(ARGS, Items.strings(job.args()));
        item.put(ENV, Items.stringMap(job.env()));
        item.put(SCHEDULE, scheduleValue(job.schedule()));
        item.put(TIMEOUT, n(job.timeoutSeconds()));
        item.put(MAX_ATTEMPTS, n(job.maxAttempts()));
        if (!job.nonRetryableExitCodes().isEmpty()) {
            item.put(NO_RETRY_CODES, exitCodesValue(job.nonRetryableExitCodes()));
        }
        item.put(FIRING, firingValue(job.firing()));
        item.put(SECRET_NAMES, Items.strings(job.secretNames()));
        item.put(LIMITS, limitsValue(job.limits()));
        if (!job.labels().isEmpty()) {
            item.put(LABELS, Items.stringMap(job.labels()));
        }
        if (job.webhook() != null) {
            item.put(WEBHOOK, webhookValue(job.webhook()));
        }
        if (job.expect() != null) {
            item.put(EXPECT, expectValue(job.expect()));
        }
        return item;
    }

    /** The attributes of {@link #definition} left out when empty: a replacement removes them then. */
    static final List<String> OPTIONAL_DEFINITION = List.of(NO_RETRY_CODES, LABELS, WEBHOOK, EXPECT);

    /** The exit codes that end a run without a retry, as stored: a list of numbers. */
    static AttributeValue exitCodesValue(List<Integer> codes) {
        return AttributeValue.fromL(codes.stream().map(c -> n(c)).toList());
    }

    static AttributeValue firingValue(FiringPolicy f) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        if (f.jitter() != null) {
            m.put("jitterMode", s(f.jitter().mode().name()));
            m.put("jitterMax", s(f.jitter().max().toString()));
        }
        m.put("catchUp", s(f.catchUp().mode().name()));
        m.put("catchUpMaxAge", s(f.catchUp().maxAge().toString()));
        m.put("catchUpMaxRuns", n(f.catchUp().maxRuns()));
        m.put("overlap", s(f.overlap().name()));
        m.put("maxRunAge", s(f.maxRunAge().toString()));
        m.put(MAX_CONCURRENCY, n(f.maxConcurrency()));
        m.put(PRIORITY, s(f.priority().name()));
        return AttributeValue.fromM(m);
    }

    /** Jobs written before firing policies existed have none stored: they get the defaults. */
    private static FiringPolicy firing(AttributeValue value) {
        if (value == null || !value.hasM()) {
            return FiringPolicy.DEFAULT;
        }
        Map<String, AttributeValue> m = value.m();
        String jitterMode = Items.str(m, "jitterMode");
        Jitter jitter = jitterMode == null
                ? null
                : new Jitter(Jitter.Mode.valueOf(jitterMode), Duration.parse(Items.str(m, "jitterMax")));
        CatchUp catchUp = new CatchUp(
                CatchUp.Mode.valueOf(Items.str(m, "catchUp")),
                Duration.parse(Items.str(m, "catchUpMaxAge")),
                Items.integer(m, "catchUpMaxRuns"));
        // Jobs written before limits existed have none stored: one run at a time, as overlap forbid|queue was.
        Integer maxConcurrency = m.containsKey(MAX_CONCURRENCY) ? Items.integer(m, MAX_CONCURRENCY) : null;
        return new FiringPolicy(
                jitter,
                catchUp,
                Overlap.valueOf(Items.str(m, "overlap")),
                Duration.parse(Items.str(m, "maxRunAge")),
                maxConcurrency == null ? 1 : maxConcurrency,
                // Jobs written before lanes existed have none stored: the normal lane, the one queue there was.
                m.containsKey(PRIORITY) ? Priority.valueOf(Items.str(m, PRIORITY)) : Priority.NORMAL);
    }

    /**
     * The schedule as a map of strings, readable in the table; a dates entry is a string when it is an instant and
     * a {@code {local, zone}} map when it is a wall-clock time, as in the JSON.
     */
    static AttributeValue scheduleValue(ScheduleSpec spec) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("type", s(spec.type()));
        putIfSet(m, "at", spec.at());
        putIfSet(m, "every", spec.every());
        putIfSet(m, "start", spec.start());
        putIfSet(m, "end", spec.end());
        putIfSet(m, "expression", spec.expression());
        putIfSet(m, "timezone", spec.timezone());
        putIfSet(m, "dstGap", spec.dstGap());
        putIfSet(m, "dstOverlap", spec.dstOverlap());
        if (spec.dates() != null) {
            m.put(
                    "dates",
                    AttributeValue.fromL(
                            spec.dates().stream().map(JobItems::dateValue).toList()));
        }
        return AttributeValue.fromM(m);
    }

    private static AttributeValue dateValue(DateSpec d) {
        if (d.instant() != null) {
            return s(d.instant());
        }
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        putIfSet(m, "local", d.local());
        putIfSet(m, "zone", d.zone());
        return AttributeValue.fromM(m);
    }

    private static void putIfSet(Map<String, AttributeValue> m, String name, String value) {
        if (value != null) {
            m.put(name, s(value));
        }
    }

    private static ScheduleSpec scheduleSpec(AttributeValue value) {
        Map<String, AttributeValue> m = value == null || !value.hasM() ? Map.of() : value.m();
        AttributeValue dates = m.get("dates");
        return new ScheduleSpec(
                Items.str(m, "type"),
                Items.str(m, "at"),
                Items.str(m, "every"),
                Items.str(m, "start"),
                Items.str(m, "end"),
                Items.str(m, "expression"),
                Items.str(m, "timezone"),
                Items.str(m, "dstGap"),
                Items.str(m, "dstOverlap"),
                dates == null || !dates.hasL()
                        ? null
                        : dates.l().stream().map(JobItems::dateSpec).toList());
    }

    private static DateSpec dateSpec(AttributeValue v) {
        return v.s() != null ? DateSpec.of(v.s()) : DateSpec.local(Items.str(v.m(), "local"), Items.str(v.m(), "zone"));
    }

    static Job fromItem(Map<String, AttributeValue> item) {
        return new Job(
                Items.str(item, Resources.JOB_ID),
                Items.str(item, Resources.OWNER),
                Items.str(item, NAME),
                Items.str(item, Resources.BINARY_ID),
                Items.str(item, BINARY_SHA),
                Items.strings(item, ARGS),
                Items.stringMap(item, ENV),
                scheduleSpec(item.get(SCHEDULE)),
                Items.integer(item, TIMEOUT),
                Items.integer(item, MAX_ATTEMPTS),
                JobState.valueOf(Items.str(item, STATE)),
                Items.longValue(item, VERSION),
                Items.instant(item, CREATED_AT),
                Items.instant(item, UPDATED_AT),
                Items.str(item, PENDING),
                Items.instant(item, NEXT_RUN_AT),
                Items.instant(item, PAUSED_AT),
                item.containsKey(NO_RETRY_CODES)
                        ? item.get(NO_RETRY_CODES).l().stream()
                                .map(v -> Integer.valueOf(v.n()))
                                .toList()
                        : List.of(),
                firing(item.get(FIRING)),
                activeRuns(item),
                item.containsKey(SECRET_NAMES) ? Items.strings(item, SECRET_NAMES) : List.of(),
                limits(item.get(LIMITS)),
                item.containsKey(LABELS) ? Items.stringMap(item, LABELS) : Map.of(),
                Items.str(item, PAUSE_NOTE),
                webhook(item.get(WEBHOOK)),
                expect(item.get(EXPECT)));
    }

    /** An expectation as stored: {@code {every: "PT25H"}} or {@code {by: <a schedule, as the job's is stored>}}. */
    static AttributeValue expectValue(Expectation e) {
        return AttributeValue.fromM(
                e.every() != null ? Map.of("every", s(e.every().toString())) : Map.of("by", scheduleValue(e.by())));
    }

    private static Expectation expect(AttributeValue value) {
        if (value == null || !value.hasM()) {
            return null;
        }
        Map<String, AttributeValue> m = value.m();
        return m.containsKey("every")
                ? new Expectation(Duration.parse(Items.str(m, "every")), null)
                : new Expectation(null, scheduleSpec(m.get("by")));
    }

    static AttributeValue webhookValue(Webhook w) {
        return AttributeValue.fromM(Map.of("url", s(w.url()), "on", Items.strings(w.onNames())));
    }

    private static Webhook webhook(AttributeValue value) {
        if (value == null || !value.hasM()) {
            return null;
        }
        Map<String, AttributeValue> m = value.m();
        return new Webhook(Items.str(m, "url"), Set.copyOf(Items.strings(m, "on")));
    }

    /** The limits the job named, by their JSON names; a job stored before limits existed named none. */
    static AttributeValue limitsValue(RunLimits l) {
        Map<String, AttributeValue> m = new HashMap<>();
        RunLimits.FIELDS.forEach((name, f) -> {
            Integer v = f.apply(l);
            if (v != null) {
                m.put(name, n(v));
            }
        });
        return AttributeValue.fromM(m);
    }

    private static RunLimits limits(AttributeValue value) {
        Map<String, AttributeValue> m = value == null || !value.hasM() ? Map.of() : value.m();
        java.util.function.Function<String, Integer> get =
                k -> m.containsKey(k) ? Integer.valueOf(m.get(k).n()) : null;
        return new RunLimits(
                get.apply("processes"),
                get.apply("memoryMb"),
                get.apply("openFiles"),
                get.apply("fileSizeMb"),
                get.apply("cpuSeconds"),
                get.apply("diskMb"));
    }
}
