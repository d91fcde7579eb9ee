package dev.punctual.core.job;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What a job's command line may hold: its args, env and secret variables. The API checks a request against these
 * ({@code JobService}) and the executor checks the stored job again before it starts anything ({@code LaunchCheck}).
 */
public final class CommandLine {
    /** Env names a job may not set: they would override the scheduler's own variables or inject libraries. */
    public static final List<String> RESERVED_ENV_PREFIXES = List.of("AWS_", "LD_", "SCHEDULER_");
    /** What a variable name (env, secrets) must look like; the executor checks it again ({@code LaunchCheck}). */
    public static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public static final int MAX_ARGS = 256;
    public static final int MAX_ENV = 128;
    /** Secret variables a job may have; their values are stored apart (64 × 4 KiB fits one item). */
    public static final int MAX_SECRETS = 64;

    public static final int MAX_VALUE_LENGTH = 4096;
    /**
     * The most UTF-8 bytes args and env may take together (every arg, every env name and value). Each alone may be
     * within its own limits and still, together, exceed DynamoDB's 400 KB item; this budget leaves the job item
     * room for its schedule (a dates list is up to ~60 KB), its other attributes and job-level secrets to come.
     */
    public static final int MAX_ARGS_ENV_BYTES = 256 * 1024;

    private CommandLine() {}
}
