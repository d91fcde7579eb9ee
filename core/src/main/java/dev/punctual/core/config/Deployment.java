package dev.punctual.core.config;

import java.util.Objects;

/**
 * What this deployment's resources are called and how its jobs index is spread: every table, queue and the bucket
 * are named from {@code prefix}, so two deployments in one account differ by it.
 *
 * @param prefix the start of every resource's name ({@code punctual-jobs}, {@code punctual-runs}…)
 * @param bucket the S3 bucket of binaries and logs; blank: {@code <prefix>-artifacts}
 * @param shards how many partitions the due-time index of runs is spread over, so no one partition takes every write
 *     of a busy minute; the sweep queries each
 */
public record Deployment(String prefix, String bucket, int shards) {
    public static final String DEFAULT_PREFIX = "punctual";
    public static final int DEFAULT_SHARDS = 16;

    public Deployment {
        Objects.requireNonNull(prefix, "prefix");
        if (bucket == null || bucket.isBlank()) {
            bucket = prefix + "-artifacts";
        }
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1");
        }
    }
}
