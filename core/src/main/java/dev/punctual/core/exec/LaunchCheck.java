package dev.punctual.core.exec;

import dev.punctual.core.job.CommandLine;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The executor's own check of what it is about to launch. The API validated the job when it was written, but the
 * executor reads it back from the jobs table, and a job item changed there behind the API's back (an operator, a
 * bug, a leaked credential) must not get an {@code LD_PRELOAD} or an {@code AWS_*} variable into a process, nor
 * arguments the API would have refused. The same limits as {@code JobService}'s (see {@link CommandLine}), checked again at the last moment.
 */
public final class LaunchCheck {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /** Names from a tampered item may be anything: at most this much of one goes into an error message. */
    private static final int SHOWN_NAME = 64;

    private LaunchCheck() {}

    /** Everything about the job the executor refuses to launch; empty when it may run. */
    public static List<String> problems(Job job) {
        return problems(job.owner(), job.binarySha256(), job.args(), job.env());
    }

    static List<String> problems(String owner, String binarySha256, List<String> args, Map<String, String> env) {
        List<String> out = new ArrayList<>();
        if (owner == null || owner.isEmpty()) {
            out.add("owner: is missing");
        }
        if (binarySha256 == null || !SHA256.matcher(binarySha256).matches()) {
            out.add("binarySha256: is not 64 lowercase hex digits");
        }
        if (args == null) {
            out.add("args: is missing");
        } else if (args.size() > CommandLine.MAX_ARGS) {
            out.add("args: " + args.size() + " items, more than " + CommandLine.MAX_ARGS);
        } else {
            for (int i = 0; i < args.size(); i++) {
                String why = valueProblem(args.get(i));
                if (why != null) {
                    out.add("args[" + i + "]: " + why);
                }
            }
        }
        if (env == null) {
            out.add("env: is missing");
        } else if (env.size() > CommandLine.MAX_ENV) {
            out.add("env: " + env.size() + " entries, more than " + CommandLine.MAX_ENV);
        } else {
            out.addAll(variables("env", env));
        }
        return out;
    }

    /** Problems of variables that go into the binary's environment ({@code env}, or the job's secrets). */
    public static List<String> variables(String field, Map<String, String> vars) {
        List<String> out = new ArrayList<>();
        vars.forEach((name, value) -> {
            String why = nameProblem(name);
            if (why == null) {
                why = valueProblem(value);
            }
            if (why != null) {
                out.add(field + "." + shown(name) + ": " + why);
            }
        });
        return out;
    }

    private static String nameProblem(String name) {
        if (name == null || !CommandLine.ENV_NAME.matcher(name).matches()) {
            return "is not a valid variable name";
        }
        String upper = name.toUpperCase(Locale.ROOT);
        if (CommandLine.RESERVED_ENV_PREFIXES.stream().anyMatch(upper::startsWith)) {
            return "is reserved (names starting with " + String.join(", ", CommandLine.RESERVED_ENV_PREFIXES)
                    + " cannot be set by a job)";
        }
        return null;
    }

    private static String valueProblem(String value) {
        if (value == null) {
            return "is not a string";
        }
        if (value.length() > CommandLine.MAX_VALUE_LENGTH) {
            return "is longer than " + CommandLine.MAX_VALUE_LENGTH + " characters";
        }
        if (value.indexOf('\0') >= 0) {
            return "contains NUL";
        }
        return null;
    }

    /** A name as it can safely appear in a run's error: control characters replaced, cut to a sane length. */
    private static String shown(String name) {
        if (name == null) {
            return "(null)";
        }
        StringBuilder b = new StringBuilder();
        name.codePoints().limit(SHOWN_NAME).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return name.codePointCount(0, name.length()) > SHOWN_NAME ? b + "…" : b.toString();
    }

    /**
     * The environment the run's binary gets: the job's, its secrets (read at the last moment), and what the scheduler
     * tells every run about itself.
     */
    static Map<String, String> environment(Job job, Map<String, String> secrets, Run run) {
        Map<String, String> env = new LinkedHashMap<>(job.env());
        env.putAll(secrets);
        env.put("SCHEDULER_JOB_ID", run.jobId());
        env.put("SCHEDULER_RUN_ID", run.runId());
        env.put("SCHEDULER_ATTEMPT", Integer.toString(run.attempt()));
        env.put("SCHEDULER_SCHEDULED_AT", run.scheduledAt().toString());
        // The same for every attempt of this occurrence: a binary can make its side effects idempotent on it.
        env.put("SCHEDULER_IDEMPOTENCY_KEY", run.jobId() + "@" + run.occurrence());
        return env;
    }
}
