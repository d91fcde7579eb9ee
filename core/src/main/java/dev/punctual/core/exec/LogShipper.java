package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Ships a running attempt's output to S3 in chunks, so the API can show it before the attempt ends: only new bytes,
 * once {@code interval} has passed since the start and since the last chunk (sooner once {@value #EARLY_BYTES}
 * bytes wait), only while new output exists, and never past the output cap (it ships what the capped log file
 * holds). A run that ends within the interval ships nothing: its log is stored at the end as before, which stays
 * the truth once the attempt has ended.
 *
 * <p>Best effort, on a virtual thread of its own: a chunk upload never holds up or fails the run. A failed upload
 * is tried again an interval later with whatever has come since, under the key of its new end; a chunk that did land
 * although its answer was lost is then overlapped by the next one, which readers allow for. The binary controls
 * the bytes only: the keys are made of the job, run and attempt ids and offsets the executor counts.
 */
final class LogShipper {
    private static final System.Logger LOG = System.getLogger(LogShipper.class.getName());

    /** Pending output that is shipped at once rather than at the interval. */
    static final long EARLY_BYTES = 1024 * 1024;
    /** How often the shipper looks for new output (at most; the interval itself when shorter). */
    static final Duration TICK = Duration.ofSeconds(1);

    private final ArtifactStore store;
    private final String jobId;
    private final String runId;
    private final int attempt;
    private final Path logFile;
    private final LongSupplier written;
    private final Duration interval;
    private final Clock clock;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private long shipped;
    private Instant last;

    /** Ships the output counted by {@code written} (bytes of {@code logFile}) once {@link #start}ed. */
    LogShipper(
            ArtifactStore store,
            String jobId,
            String runId,
            int attempt,
            Path logFile,
            LongSupplier written,
            Duration interval,
            Clock clock) {
        this.store = store;
        this.jobId = jobId;
        this.runId = runId;
        this.attempt = attempt;
        this.logFile = logFile;
        this.written = written;
        this.interval = interval;
        this.clock = clock;
        this.last = clock.instant();
    }

    /** Starts shipping, unless the interval is zero (shipping off). */
    LogShipper start() {
        if (interval.isPositive()) {
            Thread.ofVirtual()
                    .name("log-ship-" + jobId + "/" + runId + "/" + attempt)
                    .start(this::loop);
        }
        return this;
    }

    /**
     * Stops shipping; an upload under way finishes on its own (it is never waited for: the attempt's log is stored
     * from the file, whatever the chunks hold).
     */
    void stop() {
        stopped.countDown();
    }

    /**
     * Whether {@code pending} bytes are shipped now, {@code sinceLast} after the attempt's start or its last chunk:
     * once the interval has passed, or at once when they are many.
     */
    static boolean due(long pending, Duration sinceLast, Duration interval) {
        return pending > 0 && (pending >= EARLY_BYTES || sinceLast.compareTo(interval) >= 0);
    }

    private void loop() {
        long tick = Math.min(TICK.toMillis(), interval.toMillis());
        try {
            while (!stopped.await(tick, TimeUnit.MILLISECONDS)) {
                long end = written.getAsLong();
                Instant now = clock.instant();
                if (due(end - shipped, Duration.between(last, now), interval)) {
                    ship(end);
                    last = now;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void ship(long end) {
        try {
            store.putChunk(ArtifactStore.chunkKey(jobId, runId, attempt, end), read(shipped, end));
            shipped = end;
        } catch (IOException | RuntimeException e) {
            // Tried again an interval later, with what has come since; the run goes on either way.
            LOG.log(Level.DEBUG, "shipping output of " + jobId + "/" + runId + " attempt " + attempt + " failed", e);
        }
    }

    private byte[] read(long from, long to) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(to - from));
        try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.READ)) {
            while (buf.hasRemaining()) {
                if (ch.read(buf, from + buf.position()) < 0) {
                    throw new IOException("log file shorter than counted");
                }
            }
        }
        return buf.array();
    }
}
