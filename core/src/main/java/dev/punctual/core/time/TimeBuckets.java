package dev.punctual.core.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Minute buckets of the due index. A run due at {@code t} lives in partition {@code <minute of t>#<shard>}, with
 * the shard derived from its run id so writes of one busy minute spread over {@code shards} partitions.
 */
public final class TimeBuckets {
    private static final DateTimeFormatter MINUTE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm'Z'").withZone(ZoneOffset.UTC);

    private final int shards;

    public TimeBuckets(int shards) {
        this.shards = shards;
    }

    public int shards() {
        return shards;
    }

    public static Instant bucketOf(Instant t) {
        return t.truncatedTo(ChronoUnit.MINUTES);
    }

    public int shardOf(String jobId, String runId) {
        return Math.floorMod((jobId + "/" + runId).hashCode(), shards);
    }

    public static String partition(Instant bucket, int shard) {
        return MINUTE.format(bucket) + "#" + shard;
    }

    public String partitionFor(Instant due, String jobId, String runId) {
        return partition(bucketOf(due), shardOf(jobId, runId));
    }

    /** Sort key: the due instant (fixed width, so strings sort as instants) then the run's identity. */
    public static String sortKey(Instant due, String jobId, String runId) {
        return Instants.fixed(due) + "#" + jobId + "#" + runId;
    }

    /** The instant a sort key starts with: when its run wants attention. */
    public static Instant attentionOf(String sortKey) {
        return Instant.parse(sortKey.substring(0, sortKey.indexOf('#')));
    }

    /** The greatest sort key of anything due at or before {@code t}. */
    public static String sortUpperBound(Instant t) {
        return Instants.fixed(t) + "#~";
    }
}
