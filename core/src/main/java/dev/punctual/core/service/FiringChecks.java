package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Jitter;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.firing.Priority;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The check of a job request's firing fields (jitter, catchUp, overlap, maxRunAge, maxConcurrency, priority) into a
 * {@link FiringPolicy}, naming each bad field; and the policy shown back in the request's terms.
 */
final class FiringChecks {
    private FiringChecks() {}

    /** What a catch-up mode that is none of them is told, in a job's catchUp and in a resume's. */
    static final String CATCH_UP_MODES = "must be one of skip, latest, all";

    static FiringPolicy parse(JobRequest req, List<FieldError> errors) {
        Overlap o = overlap(req.overlap(), errors);
        return new FiringPolicy(
                jitter(req.jitter(), errors),
                catchUp(req.catchUp(), errors),
                o,
                duration(
                        errors,
                        "maxRunAge",
                        req.maxRunAge(),
                        FiringPolicy.DEFAULT_MAX_RUN_AGE,
                        FiringPolicy.MIN_MAX_RUN_AGE,
                        FiringPolicy.MAX_MAX_RUN_AGE),
                maxConcurrency(req.maxConcurrency(), o, errors),
                priority(req.priority(), errors));
    }

    private static Priority priority(String value, List<FieldError> errors) {
        Priority p = value == null ? Priority.NORMAL : Priority.parse(value);
        if (p == null) {
            errors.add(new FieldError("priority", Priority.MUST_BE));
        }
        return p;
    }

    /**
     * A limit is what happens to a run that finds the job full: skipped ({@code forbid}) or waiting ({@code queue});
     * under {@code allow} every run starts, so a limit there would be a promise nothing keeps.
     */
    private static int maxConcurrency(Integer value, Overlap overlap, List<FieldError> errors) {
        if (value == null) {
            return 1;
        }
        if (value < 1 || value > FiringPolicy.MAX_CONCURRENCY_LIMIT) {
            errors.add(new FieldError("maxConcurrency", "must be between 1 and " + FiringPolicy.MAX_CONCURRENCY_LIMIT));
            return 1;
        }
        if (overlap == Overlap.ALLOW && value > 1) {
            errors.add(new FieldError(
                    "maxConcurrency",
                    "needs overlap forbid or queue (what a run that finds the job full does: skip or wait);"
                            + " under allow every run starts"));
        }
        return value;
    }

    private static Jitter jitter(JitterSpec spec, List<FieldError> errors) {
        if (spec == null) {
            return null;
        }
        Jitter.Mode mode = null;
        if (spec.mode() == null) {
            errors.add(new FieldError("jitter.mode", "is required (random or hashed)"));
        } else {
            mode = parseEnum(Jitter.Mode.class, spec.mode());
            if (mode == null) {
                errors.add(new FieldError("jitter.mode", "must be one of random, hashed"));
            }
        }
        if (spec.max() == null) {
            errors.add(new FieldError("jitter.max", "is required (an ISO-8601 duration such as PT30S)"));
            return null;
        }
        Duration max = duration(errors, "jitter.max", spec.max(), null, Duration.ofMillis(1), Jitter.LIMIT);
        return mode == null || max == null ? null : new Jitter(mode, max);
    }

    private static CatchUp catchUp(CatchUpSpec spec, List<FieldError> errors) {
        if (spec == null) {
            return CatchUp.DEFAULT;
        }
        CatchUp.Mode mode = CatchUp.DEFAULT.mode();
        if (spec.mode() != null) {
            mode = catchUpMode(spec.mode());
            if (mode == null) {
                errors.add(new FieldError("catchUp.mode", CATCH_UP_MODES));
            }
        }
        Duration maxAge = duration(
                errors,
                "catchUp.maxAge",
                spec.maxAge(),
                CatchUp.DEFAULT_MAX_AGE,
                CatchUp.MISSED_AFTER,
                CatchUp.MAX_AGE_LIMIT);
        int maxRuns = CatchUp.DEFAULT_MAX_RUNS;
        if (spec.maxRuns() != null) {
            if (spec.maxRuns() < 1 || spec.maxRuns() > CatchUp.MAX_RUNS_LIMIT) {
                errors.add(new FieldError("catchUp.maxRuns", "must be between 1 and " + CatchUp.MAX_RUNS_LIMIT));
            } else {
                maxRuns = spec.maxRuns();
            }
        }
        return mode == null || maxAge == null ? null : new CatchUp(mode, maxAge, maxRuns);
    }

    private static Overlap overlap(String value, List<FieldError> errors) {
        if (value == null) {
            return Overlap.ALLOW;
        }
        Overlap o = parseEnum(Overlap.class, value);
        if (o == null) {
            errors.add(new FieldError("overlap", "must be one of allow, forbid, queue"));
        }
        return o;
    }

    /** The mode of a catch-up given as a plain string (resume's override), or null if it is none of them. */
    static CatchUp.Mode catchUpMode(String value) {
        return value == null ? null : parseEnum(CatchUp.Mode.class, value);
    }

    private static Duration duration(
            List<FieldError> errors, String field, String text, Duration dflt, Duration min, Duration max) {
        if (text == null) {
            return dflt;
        }
        Duration d;
        try {
            d = Duration.parse(text);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(field, "is not an ISO-8601 duration (e.g. PT30S, PT5M, P1D)"));
            return null;
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            errors.add(new FieldError(field, "must be between " + min + " and " + max));
            return null;
        }
        return d;
    }

    private static <E extends Enum<E>> E parseEnum(Class<E> type, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The policy as the API shows it, defaults filled in. */
    static JitterSpec jitterSpec(FiringPolicy p) {
        return p.jitter() == null
                ? null
                : new JitterSpec(p.jitter().mode().wire(), p.jitter().max().toString());
    }

    static CatchUpSpec catchUpSpec(FiringPolicy p) {
        return new CatchUpSpec(
                p.catchUp().mode().wire(),
                p.catchUp().maxAge().toString(),
                p.catchUp().maxRuns());
    }
}
