package dev.punctual.core.service;

import dev.punctual.core.binary.Binary;
import dev.punctual.core.config.Runs;
import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.job.CommandLine;
import dev.punctual.core.job.Expectation;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.job.Labels;
import dev.punctual.core.job.Webhook;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.SchedulePeak;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The checks of what a client sends to the jobs API, made before anything is written: a job request
 * ({@link #validate}, the same for a create and a replace), its size budgets, and the {@code If-Match} header.
 */
public final class JobValidator {
    static final int MAX_EXIT_CODES = 32;

    private final BinaryService binaries;
    private final Schedules schedules;
    private final Runs runs;
    private final RunLimits maxima;
    private final WebhookMode webhooks;

    /** {@code runs}' timeout and attempt bounds, {@code maxima} a run's most, {@code webhooks} where they may post. */
    public JobValidator(
            BinaryService binaries, Schedules schedules, Runs runs, RunLimits maxima, WebhookMode webhooks) {
        this.binaries = binaries;
        this.schedules = schedules;
        this.runs = runs;
        this.maxima = maxima;
        this.webhooks = webhooks;
    }

    /** A validated job request. */
    record Definition(
            String name,
            Binary binary,
            List<String> args,
            Map<String, String> env,
            Schedule schedule,
            int timeout,
            int maxAttempts,
            List<Integer> noRetry,
            FiringPolicy firing,
            Instant first,
            Map<String, String> secrets,
            int peak,
            RunLimits limits,
            Map<String, String> labels,
            Webhook webhook,
            String webhookSecret,
            Expectation expect) {
        /** {@code secretNames}: of the new secrets, or (a PUT that leaves them out) of the job's current ones. */
        Job job(
                String id,
                String owner,
                JobState state,
                long version,
                Instant createdAt,
                Instant updatedAt,
                String pendingRunId,
                Instant nextRunAt,
                List<String> secretNames) {
            return Job.builder()
                    .id(id)
                    .owner(owner)
                    .name(name)
                    .binaryId(binary.id())
                    .binarySha256(binary.sha256())
                    .args(args)
                    .env(env)
                    .schedule(schedule.spec())
                    .timeoutSeconds(timeout)
                    .maxAttempts(maxAttempts)
                    .state(state)
                    .version(version)
                    .createdAt(createdAt)
                    .updatedAt(updatedAt)
                    .pendingRunId(pendingRunId)
                    .nextRunAt(nextRunAt)
                    .nonRetryableExitCodes(noRetry)
                    .firing(firing)
                    .secretNames(
                            secrets == null
                                    ? secretNames
                                    : secrets.keySet().stream().sorted().toList())
                    .limits(limits)
                    .labels(labels)
                    .webhook(webhook)
                    .expect(expect)
                    .build();
        }
    }

    /**
     * The request's expectation, checked (null: none): exactly one of {@code every} (an ISO-8601 duration, from
     * {@link Expectation#MIN_EVERY} to {@link Expectation#MAX_EVERY}) and {@code by} (a schedule, as a job's, with a
     * deadline left from now; not {@code now}). {@code by} is kept as parsed, its defaults filled in.
     */
    private Expectation expectation(ExpectSpec e, Instant now, List<FieldError> errors) {
        if (e == null) {
            return null;
        }
        if ((e.every() == null) == (e.by() == null)) {
            errors.add(new FieldError("expect", "must have exactly one of every, by"));
            return null;
        }
        if (e.every() != null) {
            Duration every;
            try {
                every = Duration.parse(e.every());
            } catch (DateTimeParseException bad) {
                errors.add(new FieldError("expect.every", "must be an ISO-8601 duration, such as PT25H"));
                return null;
            }
            if (every.compareTo(Expectation.MIN_EVERY) < 0 || every.compareTo(Expectation.MAX_EVERY) > 0) {
                errors.add(new FieldError(
                        "expect.every",
                        "must be from " + Expectation.MIN_EVERY + " to " + Expectation.MAX_EVERY
                                + " (the watch is checked once a minute)"));
                return null;
            }
            return new Expectation(every, null);
        }
        if ("now".equals(e.by().type())) {
            errors.add(new FieldError("expect.by.type", "must be once, interval, cron or dates: a deadline to come"));
            return null;
        }
        try {
            Schedule by = schedules.parse(e.by(), now, "expect.by");
            if (by.first(now).isEmpty()) {
                errors.add(new FieldError("expect.by", "has no deadline from now on"));
                return null;
            }
            return new Expectation(null, by.spec());
        } catch (ValidationException bad) {
            errors.addAll(bad.errors());
            return null;
        }
    }

    /**
     * Every check of a job request; one 422 naming each bad field, and nothing written. {@code known}: binaries
     * found usable by an earlier request of the same call (a batch), by id; this one's is added.
     */
    Definition validate(String owner, JobRequest req, Instant now, Map<String, Binary> known) {
        return validate(owner, req, now, known, null);
    }

    /**
     * {@code spec}, an interval without a start that replaces an interval, with the start it replaces: re-applying a
     * job's file that names no start changes nothing, instead of moving its occurrences to the second of the
     * replacement (a start left out means the job's creation). Anything else as written.
     */
    static ScheduleSpec keepingStart(ScheduleSpec spec, Job current) {
        if (spec == null
                || current == null
                || spec.start() != null
                || !"interval".equals(spec.type())
                || !"interval".equals(current.schedule().type())
                || current.schedule().start() == null) {
            return spec;
        }
        return new ScheduleSpec(
                spec.type(),
                spec.at(),
                spec.every(),
                current.schedule().start(),
                spec.end(),
                spec.expression(),
                spec.timezone(),
                spec.dstGap(),
                spec.dstOverlap(),
                spec.dates());
    }

    /** {@link #validate}, of a request that replaces {@code current}. */
    Definition validate(String owner, JobRequest req, Instant now, Map<String, Binary> known, Job current) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        List<FieldError> errors = new ArrayList<>();
        validateName(req.name(), errors);
        List<String> args = req.args() == null ? List.of() : req.args();
        Map<String, String> env = req.env() == null ? Map.of() : req.env();
        int before = errors.size();
        BinaryInputs.validateArgs(args, errors);
        BinaryInputs.validateVariables("env", env, CommandLine.MAX_ENV, errors);
        Map<String, String> secrets = req.secrets();
        if (secrets != null) {
            BinaryInputs.validateVariables("secrets", secrets, CommandLine.MAX_SECRETS, errors);
            secrets.keySet().stream()
                    .filter(env::containsKey)
                    .sorted()
                    .forEach(name -> errors.add(
                            new FieldError("secrets." + name, "is also in env: a variable is either plain or secret")));
        }
        if (errors.size() == before) {
            BinaryInputs.checkArgsEnvBudget(args, env);
            if (secrets != null) {
                BinaryInputs.checkSecretsBudget(secrets);
            }
        }
        int timeout = range(
                errors,
                "timeoutSeconds",
                req.timeoutSeconds(),
                runs.defaultTimeoutSeconds(),
                1,
                runs.maxTimeoutSeconds());
        int maxAttempts =
                range(errors, "maxAttempts", req.maxAttempts(), runs.defaultMaxAttempts(), 1, runs.maxAttemptsLimit());
        List<Integer> noRetry = exitCodes(req.nonRetryableExitCodes(), errors);
        FiringPolicy firing = FiringChecks.parse(req, errors);
        RunLimits limits = req.limits() == null ? RunLimits.NONE : req.limits();
        limits.problems(maxima).forEach(p -> errors.add(new FieldError("limits." + p[0], p[1])));
        errors.addAll(Labels.problems(req.labels()));
        Webhook webhook =
                WebhookChecks.webhook(webhooks, req.webhook(), current != null && current.webhook() != null, errors);
        Expectation expect = expectation(req.expect(), now, errors);
        Schedule schedule = null;
        try {
            schedule = schedules.parse(keepingStart(req.schedule(), current), now, "schedule");
        } catch (ValidationException e) {
            errors.addAll(e.errors());
        }
        Binary binary = null;
        if (req.binaryId() == null) {
            errors.add(new FieldError("binaryId", "is required"));
        } else if (!Ids.looksLike("bin", req.binaryId())) {
            errors.add(new FieldError("binaryId", "no binary with this id"));
        } else {
            try {
                binary = known.get(req.binaryId());
                if (binary == null) {
                    binary = binaries.findForUse(owner, req.binaryId());
                    if (binaries.uploaded(binary)) {
                        known.put(binary.id(), binary);
                    } else {
                        errors.add(new FieldError(
                                "binaryId",
                                "binary " + binary.id() + " is not uploaded yet: PUT it to its uploadUrl first"));
                    }
                }
            } catch (NotFoundException e) {
                errors.add(new FieldError("binaryId", "no binary with this id"));
            }
        }
        Optional<Instant> first = schedule == null ? Optional.empty() : schedule.first(now);
        if (schedule != null && first.isEmpty()) {
            errors.add(new FieldError("schedule", "has no occurrence from now on"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.INVALID, errors);
        }
        return new Definition(
                req.name(),
                binary,
                args,
                env,
                schedule,
                timeout,
                maxAttempts,
                noRetry,
                firing,
                first.get(),
                secrets == null ? null : Map.copyOf(secrets),
                SchedulePeak.of(schedule.spec(), schedules),
                limits,
                req.labels() == null ? Map.of() : new TreeMap<>(req.labels()),
                webhook,
                req.webhook() == null ? null : req.webhook().secret(),
                expect);
    }

    /**
     * The version in an {@code If-Match} header: {@code "3"}, {@code 3} or {@code W/"3"}; empty for {@code *}, which
     * matches whatever version the job is at (but not a job that does not exist).
     */
    static OptionalLong parseIfMatch(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            throw new ValidationException(
                    Rejection.PRECONDITION_REQUIRED,
                    List.of(new FieldError(
                            "If-Match", "is required: send the job's ETag (its version) from GET /v1/jobs/{id}")));
        }
        String v = ifMatch.trim();
        if (v.equals("*")) {
            return OptionalLong.empty();
        }
        if (v.startsWith("W/")) {
            v = v.substring(2);
        }
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        try {
            return OptionalLong.of(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new ValidationException(
                    Rejection.MALFORMED,
                    List.of(new FieldError("If-Match", "must be the job's ETag, e.g. \"3\", or *")));
        }
    }

    /** The version named by {@code If-Match} is not the job's: HTTP's 412, nothing changed. */
    static ValidationException stale(String message) {
        return new ValidationException(Rejection.PRECONDITION_FAILED, List.of(new FieldError("If-Match", message)));
    }

    private static void validateName(String name, List<FieldError> errors) {
        if (name == null || name.isBlank()) {
            errors.add(new FieldError("name", "is required"));
        } else if (name.length() > 128) {
            errors.add(new FieldError("name", "must be at most 128 characters"));
        } else if (name.chars().anyMatch(Character::isISOControl)) {
            errors.add(new FieldError("name", "must not contain control characters"));
        }
    }

    /** Exit codes 1–255 (0 is success), at most {@value #MAX_EXIT_CODES}, no duplicates. */
    private static List<Integer> exitCodes(List<Integer> codes, List<FieldError> errors) {
        if (codes == null) {
            return List.of();
        }
        if (codes.size() > MAX_EXIT_CODES) {
            errors.add(new FieldError("nonRetryableExitCodes", "must have at most " + MAX_EXIT_CODES + " items"));
            return List.of();
        }
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < codes.size(); i++) {
            Integer c = codes.get(i);
            String field = "nonRetryableExitCodes[" + i + "]";
            if (c == null || c < 1 || c > 255) {
                errors.add(new FieldError(field, "must be an exit code between 1 and 255"));
            } else if (!seen.add(c)) {
                errors.add(new FieldError(field, "is listed twice"));
            }
        }
        return codes;
    }

    static int range(List<FieldError> errors, String field, Integer value, int dflt, int min, int max) {
        if (value == null) {
            return dflt;
        }
        if (value < min || value > max) {
            errors.add(new FieldError(field, "must be between " + min + " and " + max));
        }
        return value;
    }
}
