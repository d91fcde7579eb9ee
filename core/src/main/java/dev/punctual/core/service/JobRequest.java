package dev.punctual.core.service;

import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.ScheduleSpec;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v1/jobs} and {@code PUT /v1/jobs/{id}}, as received; {@link JobService} validates it.
 * {@code nonRetryableExitCodes}: exit codes that mean "retrying cannot help" (a usage error, say): the run is DEAD
 * at once. {@code jitter}, {@code catchUp}, {@code overlap}, {@code maxRunAge}, {@code maxConcurrency}, {@code priority}: the firing policy
 * ({@link dev.punctual.core.firing.FiringPolicy}); absent fields take their defaults. {@code secrets}: variables
 * whose values the API never returns (only their names); on {@code PUT}, absent means "keep the current ones".
 * {@code limits}: what one run may use (absent fields: this deployment's maxima). {@code labels}: {@code key=value}
 * tags to group and filter jobs by ({@link dev.punctual.core.job.Labels}); on {@code PUT}, absent means none.
 * {@code webhook}: where the job's run outcomes are posted ({@link WebhookRequest}); on {@code PUT}, absent means none.
 * {@code expect}: the successes the job is watched for ({@link ExpectSpec}); on {@code PUT}, absent means none.
 */
public record JobRequest(
        String name,
        String binaryId,
        List<String> args,
        Map<String, String> env,
        ScheduleSpec schedule,
        Integer timeoutSeconds,
        Integer maxAttempts,
        List<Integer> nonRetryableExitCodes,
        JitterSpec jitter,
        CatchUpSpec catchUp,
        String overlap,
        String maxRunAge,
        Integer maxConcurrency,
        String priority,
        Map<String, String> secrets,
        RunLimits limits,
        Map<String, String> labels,
        WebhookRequest webhook,
        ExpectSpec expect) {

    /** A request with what every job needs; the other fields are named on the builder, or left absent. */
    public static Builder builder(String name, String binaryId, ScheduleSpec schedule) {
        return new Builder(name, binaryId, schedule);
    }

    /** A request built by naming its fields; fields not named stay absent (null), as in a JSON body without them. */
    public static final class Builder {
        private final String name;
        private final String binaryId;
        private List<String> args;
        private Map<String, String> env;
        private final ScheduleSpec schedule;
        private Integer timeoutSeconds;
        private Integer maxAttempts;
        private List<Integer> nonRetryableExitCodes;
        private JitterSpec jitter;
        private CatchUpSpec catchUp;
        private String overlap;
        private String maxRunAge;
        private Integer maxConcurrency;
        private String priority;
        private Map<String, String> secrets;
        private RunLimits limits;
        private Map<String, String> labels;
        private WebhookRequest webhook;
        private ExpectSpec expect;

        private Builder(String name, String binaryId, ScheduleSpec schedule) {
            this.name = name;
            this.binaryId = binaryId;
            this.schedule = schedule;
        }

        public Builder args(List<String> args) {
            this.args = args;
            return this;
        }

        public Builder env(Map<String, String> env) {
            this.env = env;
            return this;
        }

        public Builder timeoutSeconds(Integer timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        public Builder maxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder nonRetryableExitCodes(List<Integer> nonRetryableExitCodes) {
            this.nonRetryableExitCodes = nonRetryableExitCodes;
            return this;
        }

        public Builder jitter(JitterSpec jitter) {
            this.jitter = jitter;
            return this;
        }

        public Builder catchUp(CatchUpSpec catchUp) {
            this.catchUp = catchUp;
            return this;
        }

        public Builder overlap(String overlap) {
            this.overlap = overlap;
            return this;
        }

        public Builder maxRunAge(String maxRunAge) {
            this.maxRunAge = maxRunAge;
            return this;
        }

        public Builder maxConcurrency(Integer maxConcurrency) {
            this.maxConcurrency = maxConcurrency;
            return this;
        }

        public Builder priority(String priority) {
            this.priority = priority;
            return this;
        }

        public Builder secrets(Map<String, String> secrets) {
            this.secrets = secrets;
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

        public Builder webhook(WebhookRequest webhook) {
            this.webhook = webhook;
            return this;
        }

        public Builder expect(ExpectSpec expect) {
            this.expect = expect;
            return this;
        }

        public JobRequest build() {
            return new JobRequest(
                    name,
                    binaryId,
                    args,
                    env,
                    schedule,
                    timeoutSeconds,
                    maxAttempts,
                    nonRetryableExitCodes,
                    jitter,
                    catchUp,
                    overlap,
                    maxRunAge,
                    maxConcurrency,
                    priority,
                    secrets,
                    limits,
                    labels,
                    webhook,
                    expect);
        }
    }
}
