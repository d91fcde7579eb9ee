package dev.punctual.bench;

import java.util.Arrays;

/** Durations in nanoseconds, appended by one thread; {@link #merge} them across threads, then {@link #summary}. */
public final class Samples {
    private long[] nanos = new long[256];
    private int size;

    public void add(long durationNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = durationNanos;
    }

    public void merge(Samples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.nanos[i]);
        }
    }

    public int size() {
        return size;
    }

    public Summary summary() {
        if (size == 0) {
            throw new IllegalStateException("no samples");
        }
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        long total = 0;
        for (long n : sorted) {
            total += n;
        }
        return new Summary(
                size,
                (double) total / size,
                percentile(sorted, 50),
                percentile(sorted, 95),
                percentile(sorted, 99),
                sorted[size - 1]);
    }

    /** Nearest rank: the smallest sample with at least {@code p} percent of the samples at or below it. */
    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** Count, mean, median, 95th and 99th percentiles and maximum, in nanoseconds. */
    public record Summary(int count, double meanNanos, long p50Nanos, long p95Nanos, long p99Nanos, long maxNanos) {}
}
