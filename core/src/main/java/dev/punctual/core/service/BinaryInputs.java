package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.job.CommandLine;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Overrides;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checks of what a binary gets from a request: its args, its env and secrets (the same rules for every
 * variable), their size budgets, and a trigger's overrides of a job's args and env. Each problem is a
 * {@link FieldError} naming its field; a budget exceeded is a 413.
 */
final class BinaryInputs {
    private BinaryInputs() {}

    static void validateArgs(List<String> args, List<FieldError> errors) {
        if (args.size() > CommandLine.MAX_ARGS) {
            errors.add(new FieldError("args", "must have at most " + CommandLine.MAX_ARGS + " items"));
            return;
        }
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a == null) {
                errors.add(new FieldError("args[" + i + "]", "must be a string"));
            } else if (a.length() > CommandLine.MAX_VALUE_LENGTH || a.indexOf('\0') >= 0) {
                errors.add(new FieldError(
                        "args[" + i + "]",
                        "must be at most " + CommandLine.MAX_VALUE_LENGTH + " characters and contain no NUL"));
            }
        }
    }

    /**
     * The overrides a trigger asks for, checked by the rules of a job's own args and env, applied to the job's: one
     * 422 naming each bad field, or a 413 when the run's command line would be too large to store.
     */
    static Overrides overrides(Job job, TriggerRequest req) {
        if (req == null || (req.args() == null && req.env() == null && req.priority() == null)) {
            return Overrides.NONE;
        }
        List<FieldError> errors = new ArrayList<>();
        Priority lane = Priority.parse(req.priority());
        if (req.priority() != null && lane == null) {
            errors.add(new FieldError("priority", Priority.MUST_BE));
        }
        if (req.args() != null) {
            validateArgs(req.args(), errors);
        }
        Map<String, String> env = req.env() == null ? Map.of() : req.env();
        validateVariables("env", env, CommandLine.MAX_ENV, errors);
        env.keySet().stream()
                .filter(job.secretNames()::contains)
                .sorted()
                .forEach(name -> errors.add(
                        new FieldError("env." + name, "is a secret of the job: it cannot be" + " overridden")));
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.INVALID, errors);
        }
        Overrides o = new Overrides(req.args(), env, lane);
        Job applied = job.overridden(o.args(), o.env());
        if (applied.env().size() > CommandLine.MAX_ENV) {
            throw ValidationException.of(
                    "env", "with the job's own, makes more than " + CommandLine.MAX_ENV + " entries");
        }
        checkArgsEnvBudget(applied.args(), applied.env());
        return o;
    }

    /**
     * Args and env each within their limits can still be too large together to store: a 413 naming the non-empty
     * ones, before anything else is checked or written.
     */
    static void checkArgsEnvBudget(List<String> args, Map<String, String> env) {
        long bytes = 0;
        for (String a : args) {
            bytes += utf8Length(a);
        }
        bytes += utf8Length(env);
        if (bytes <= CommandLine.MAX_ARGS_ENV_BYTES) {
            return;
        }
        String message = "args and env take " + bytes + " bytes together (UTF-8); at most "
                + CommandLine.MAX_ARGS_ENV_BYTES + " are stored";
        List<FieldError> errors = new ArrayList<>();
        if (!args.isEmpty()) {
            errors.add(new FieldError("args", message));
        }
        if (!env.isEmpty()) {
            errors.add(new FieldError("env", message));
        }
        throw new ValidationException(Rejection.TOO_LARGE, errors);
    }

    /** The most UTF-8 bytes a job's secrets take (names and values): their item stays far below 400 KB. */
    static final int MAX_SECRETS_BYTES = 256 * 1024;

    static void checkSecretsBudget(Map<String, String> secrets) {
        long bytes = utf8Length(secrets);
        if (bytes > MAX_SECRETS_BYTES) {
            throw new ValidationException(
                    Rejection.TOO_LARGE,
                    List.of(new FieldError(
                            "secrets",
                            "take " + bytes + " bytes (UTF-8); at most " + MAX_SECRETS_BYTES + " are stored")));
        }
    }

    private static long utf8Length(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /** Every name and value of a set of variables, in UTF-8 bytes. */
    private static long utf8Length(Map<String, String> vars) {
        long bytes = 0;
        for (Map.Entry<String, String> e : vars.entrySet()) {
            bytes += utf8Length(e.getKey()) + utf8Length(e.getValue());
        }
        return bytes;
    }

    /** {@code env} or {@code secrets}: the same rules for every variable the binary gets. */
    static void validateVariables(String what, Map<String, String> vars, int max, List<FieldError> errors) {
        if (vars.size() > max) {
            errors.add(new FieldError(what, "must have at most " + max + " entries"));
            return;
        }
        vars.forEach((name, value) -> {
            String field = what + "." + name;
            String upper = name.toUpperCase(Locale.ROOT);
            if (!CommandLine.ENV_NAME.matcher(name).matches()) {
                errors.add(new FieldError(field, "is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)"));
            } else if (CommandLine.RESERVED_ENV_PREFIXES.stream().anyMatch(upper::startsWith)) {
                errors.add(new FieldError(
                        field,
                        "is reserved: names starting with " + String.join(", ", CommandLine.RESERVED_ENV_PREFIXES)
                                + " cannot be set by a job"));
            } else if (value == null) {
                errors.add(new FieldError(field, "must be a string"));
            } else if (value.length() > CommandLine.MAX_VALUE_LENGTH || value.indexOf('\0') >= 0) {
                errors.add(new FieldError(
                        field, "must be at most " + CommandLine.MAX_VALUE_LENGTH + " characters and contain no NUL"));
            }
        });
    }
}
