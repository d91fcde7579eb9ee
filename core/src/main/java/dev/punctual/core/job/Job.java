package dev.punctual.core.job;

import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.ScheduleSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job: its definition, its owner (tenant), its state and version, and the one pending (SCHEDULED) run of its
 * schedule, if any; {@code pausedAt} while it is PAUSED (when {@code nextRunAt} is still the due time of the pending
 * run the pause cancelled); {@code firing}: jitter, catch-up, overlap and max run age; {@code activeRuns}: by slot (up to
 * the firing policy's {@code maxConcurrency}; null: an empty slot), the run most recently claimed in it under
 * {@code overlap: forbid|queue}; a claim takes a slot whose run it checks is not still running. {@code binarySha256} is copied from the binary so executors need not read the binaries table.
 * {@code secretNames}: the names of the job's secret variables; their values are kept apart
 * ({@link JobRepository#secrets}) and never leave the storage except into the binary's environment.
 * {@code limits}: what a run may use, as the job asked ({@link RunLimits#NONE} when it named none).
 * {@code labels}: the owner's {@code key=value} tags, to group and filter jobs by ({@link Labels}); {@code pauseNote}:
 * why it was paused, as the pausing request said, while it is PAUSED. {@code webhook}: where its outcomes are posted
 * (null: nowhere). {@code expect}: the successes it is watched for (null: not watched).
 */
public record Job(
        String id,
        String owner,
        String name,
        String binaryId,
        String binarySha256,
        List<String> args,
        Map<String, String> env,
        ScheduleSpec schedule,
        int timeoutSeconds,
        int maxAttempts,
        JobState state,
        long version,
        Instant createdAt,
        Instant updatedAt,
        String pendingRunId,
        Instant nextRunAt,
        Instant pausedAt,
        List<Integer> nonRetryableExitCodes,
        FiringPolicy firing,
        List<String> activeRuns,
        List<String> secretNames,
        RunLimits limits,
        Map<String, String> labels,
        String pauseNote,
        Webhook webhook,
        Expectation expect) {

    public Job {
        limits = limits == null ? RunLimits.NONE : limits;
        labels = labels == null ? Map.of() : labels;
        nonRetryableExitCodes = nonRetryableExitCodes == null ? List.of() : List.copyOf(nonRetryableExitCodes);
        firing = firing == null ? FiringPolicy.DEFAULT : firing;
        secretNames = secretNames == null ? List.of() : List.copyOf(secretNames);
        // Empty slots are nulls, which List.copyOf refuses.
        activeRuns = activeRuns == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(activeRuns));
    }

    /**
     * The job as one run runs it: {@code args} instead of its own (null: its own), {@code env} set over its own. A
     * triggered run's overrides ({@code dev.punctual.core.run.Overrides}).
     */
    public Job overridden(List<String> args, Map<String, String> env) {
        if (args == null && env.isEmpty()) {
            return this;
        }
        Map<String, String> merged = new LinkedHashMap<>(this.env);
        merged.putAll(env);
        return toBuilder().args(args == null ? this.args : args).env(merged).build();
    }

    /**
     * Whether {@code other} defines the same job: the same name, binary, command line, schedule, limits, policies,
     * labels, webhook (its address and states) and expectation, and secrets of the same names. What the definition
     * does not say (state, version, times, pending and active runs, pause) is not compared.
     */
    public boolean sameDefinition(Job other) {
        return name.equals(other.name)
                && binaryId.equals(other.binaryId)
                && Objects.equals(binarySha256, other.binarySha256)
                && args.equals(other.args)
                && env.equals(other.env)
                && schedule.equals(other.schedule)
                && timeoutSeconds == other.timeoutSeconds
                && maxAttempts == other.maxAttempts
                && nonRetryableExitCodes.equals(other.nonRetryableExitCodes)
                && firing.equals(other.firing)
                && secretNames.equals(other.secretNames)
                && limits.equals(other.limits)
                && labels.equals(other.labels)
                && Objects.equals(webhook, other.webhook)
                && Objects.equals(expect, other.expect);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this job's values, to change some of them. */
    public Builder toBuilder() {
        return new Builder()
                .id(id)
                .owner(owner)
                .name(name)
                .binaryId(binaryId)
                .binarySha256(binarySha256)
                .args(args)
                .env(env)
                .schedule(schedule)
                .timeoutSeconds(timeoutSeconds)
                .maxAttempts(maxAttempts)
                .state(state)
                .version(version)
                .createdAt(createdAt)
                .updatedAt(updatedAt)
                .pendingRunId(pendingRunId)
                .nextRunAt(nextRunAt)
                .pausedAt(pausedAt)
                .nonRetryableExitCodes(nonRetryableExitCodes)
                .firing(firing)
                .activeRuns(activeRuns)
                .secretNames(secretNames)
                .limits(limits)
                .labels(labels)
                .pauseNote(pauseNote)
                .webhook(webhook)
                .expect(expect);
    }

    /** Builds a {@link Job}; what is left unset is null, 0 or false, and the record's own defaults apply. */
    public static final class Builder {
        private String id;
        private String owner;
        private String name;
        private String binaryId;
        private String binarySha256;
        private List<String> args = List.of();
        private Map<String, String> env = Map.of();
        private ScheduleSpec schedule;
        private int timeoutSeconds;
        private int maxAttempts;
        private JobState state;
        private long version;
        private Instant createdAt;
        private Instant updatedAt;
        private String pendingRunId;
        private Instant nextRunAt;
        private Instant pausedAt;
        private List<Integer> nonRetryableExitCodes;
        private FiringPolicy firing;
        private List<String> activeRuns;
        private List<String> secretNames;
        private RunLimits limits;
        private Map<String, String> labels;
        private String pauseNote;
        private Webhook webhook;
        private Expectation expect;

        private Builder() {}

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder binaryId(String binaryId) {
            this.binaryId = binaryId;
            return this;
        }

        public Builder binarySha256(String binarySha256) {
            this.binarySha256 = binarySha256;
            return this;
        }

        public Builder args(List<String> args) {
            this.args = args;
            return this;
        }

        public Builder env(Map<String, String> env) {
            this.env = env;
            return this;
        }

        public Builder schedule(ScheduleSpec schedule) {
            this.schedule = schedule;
            return this;
        }

        public Builder timeoutSeconds(int timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder state(JobState state) {
            this.state = state;
            return this;
        }

        public Builder version(long version) {
            this.version = version;
            return this;
        }

        public Builder createdAt(Instant createdAt) {
            this.createdAt = createdAt;
            return this;
        }

        public Builder updatedAt(Instant updatedAt) {
            this.updatedAt = updatedAt;
            return this;
        }

        public Builder pendingRunId(String pendingRunId) {
            this.pendingRunId = pendingRunId;
            return this;
        }

        public Builder nextRunAt(Instant nextRunAt) {
            this.nextRunAt = nextRunAt;
            return this;
        }

        public Builder pausedAt(Instant pausedAt) {
            this.pausedAt = pausedAt;
            return this;
        }

        public Builder nonRetryableExitCodes(List<Integer> nonRetryableExitCodes) {
            this.nonRetryableExitCodes = nonRetryableExitCodes;
            return this;
        }

        public Builder firing(FiringPolicy firing) {
            this.firing = firing;
            return this;
        }

        public Builder activeRuns(List<String> activeRuns) {
            this.activeRuns = activeRuns;
            return this;
        }

        public Builder secretNames(List<String> secretNames) {
            this.secretNames = secretNames;
            return this;
        }

        public Builder limits(RunLimits limits) {
            this.limits = limits;
            return this;
        }

        public Builder labels(Map<String, String> labels) {
            this.labels = labels;
            return this;
        }

        public Builder pauseNote(String pauseNote) {
            this.pauseNote = pauseNote;
            return this;
        }

        public Builder webhook(Webhook webhook) {
            this.webhook = webhook;
            return this;
        }

        public Builder expect(Expectation expect) {
            this.expect = expect;
            return this;
        }

        public Job build() {
            return new Job(
                    id,
                    owner,
                    name,
                    binaryId,
                    binarySha256,
                    args,
                    env,
                    schedule,
                    timeoutSeconds,
                    maxAttempts,
                    state,
                    version,
                    createdAt,
                    updatedAt,
                    pendingRunId,
                    nextRunAt,
                    pausedAt,
                    nonRetryableExitCodes,
                    firing,
                    activeRuns,
                    secretNames,
                    limits,
                    labels,
                    pauseNote,
                    webhook,
                    expect);
        }
    }
}
