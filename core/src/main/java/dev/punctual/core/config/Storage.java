package dev.punctual.core.config;

import java.time.Duration;

/**
 * What is kept of runs and binaries, where and for how long: attempts' output (on the run item or in the bucket),
 * finished runs, and the window a binary's upload URL is open.
 *
 * @param logCapBytes output kept per attempt; more is dropped
 * @param inlineLogBytes an attempt's output up to this size stays on its run item instead of in S3; 0: always S3
 * @param logChunkInterval how often a running attempt's new output is shipped to S3; 0: off
 * @param retention how long finished runs are kept (DynamoDB TTL)
 * @param uploadUrlTtl how long a presigned binary upload URL is valid
 */
public record Storage(
        long logCapBytes, long inlineLogBytes, Duration logChunkInterval, Duration retention, Duration uploadUrlTtl) {

    public static final long DEFAULT_LOG_CAP_BYTES = 5L * 1024 * 1024;
    /**
     * A log up to this size is kept on the run item instead of in S3: an S3 PUT costs as much as eight DynamoDB
     * write units, and a kilobyte more on the item at most one. 0: every log goes to S3.
     */
    public static final long DEFAULT_INLINE_LOG_BYTES = 1024;
    /**
     * How often a running attempt's new output is shipped to S3 for the API to show (sooner once 1 MiB waits). A run
     * that ends sooner ships nothing; each chunk is one PUT. 0: off (the log shows once the attempt has ended).
     */
    public static final Duration DEFAULT_LOG_CHUNK_INTERVAL = Duration.ofSeconds(5);

    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    public static final Duration DEFAULT_UPLOAD_URL_TTL = Duration.ofMinutes(15);

    public Storage {
        if (logChunkInterval == null || logChunkInterval.isNegative()) {
            throw new IllegalArgumentException("log chunk interval must be 0 (off) or more");
        }
    }
}
