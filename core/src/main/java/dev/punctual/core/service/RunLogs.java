package dev.punctual.core.service;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.binary.ArtifactStore.LogChunk;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * An attempt's output, read from an offset on. Once the attempt has ended, its log as stored (inline on the run, or
 * in S3 under its attempt): the truth. While it runs, what the executor has shipped so far in chunks
 * ({@code exec/LogShipper}), and, when asked to, waiting up to {@value #MAX_WAIT_SECONDS} s for more or for the end.
 * Offsets count bytes of the output; the answer says where the next read starts and whether the log is complete, so
 * a client follows a run by reading again from that offset until it is.
 *
 * <p>A log holds whatever bytes the binary wrote, cut at the cap possibly inside a multi-byte character, so it is
 * decoded leniently: a malformed sequence becomes U+FFFD (as a log kept on the run item was decoded when stored).
 */
public final class RunLogs {
    /** The longest a read waits for new output: well within API Gateway's 30 s. */
    public static final int MAX_WAIT_SECONDS = 20;
    /**
     * How often a waiting read looks again (the run, then the chunks after its offset): half the chunk interval,
     * within 1 to 5 s. New output only comes a chunk at a time, so looking more often would buy little latency for
     * an S3 listing and a read of the run each time (and a Lambda's duration is billed meanwhile either way).
     */
    static Duration poll(Duration chunkInterval) {
        Duration half = chunkInterval.dividedBy(2);
        return half.compareTo(MIN_POLL) < 0 ? MIN_POLL : half.compareTo(MAX_POLL) > 0 ? MAX_POLL : half;
    }

    private static final Duration MIN_POLL = Duration.ofSeconds(1);
    private static final Duration MAX_POLL = Duration.ofSeconds(5);
    /** Chunks read per answer at most (a GET each); the next read goes on from where this one stopped. */
    static final int MAX_CHUNKS = 100;

    private final OwnedJobs ownedJobs;
    private final ArtifactStore store;
    private final Duration chunkInterval;
    private final Clock clock;

    /** {@code chunkInterval}: how often a running attempt ships its output ({@code Settings.logChunkInterval}). */
    public RunLogs(OwnedJobs ownedJobs, ArtifactStore store, Duration chunkInterval, Clock clock) {
        this.ownedJobs = ownedJobs;
        this.store = store;
        this.chunkInterval = chunkInterval;
        this.clock = clock;
    }

    /**
     * Output from byte {@code nextOffset - text's bytes} on, where the next read starts, and whether the attempt has
     * ended with nothing after it. A running attempt's text never ends inside a UTF-8 character: an incomplete one is
     * left to the next read.
     */
    public record Slice(String text, long nextOffset, boolean complete) {}

    /**
     * Attempt {@code attempt} of the run (null: its latest) from byte {@code offset} (null: 0); while it runs and
     * nothing new is there, waits up to {@code waitSeconds} (null: 0) for new output or its end.
     */
    Slice read(String owner, String jobId, String runId, Integer attempt, Long offset, Integer waitSeconds) {
        List<FieldError> bad = new ArrayList<>();
        if (offset != null && offset < 0) {
            bad.add(new FieldError("offset", "must be 0 or more"));
        }
        if (waitSeconds != null && (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS)) {
            bad.add(new FieldError("wait", "must be between 0 and " + MAX_WAIT_SECONDS + " seconds"));
        }
        if (!bad.isEmpty()) {
            throw new ValidationException(Rejection.MALFORMED, bad);
        }
        ownedJobs.owned(owner, jobId);
        Run run = ownedJobs.existingRun(jobId, runId);
        if (attempt != null && (attempt < 1 || attempt > run.attempt())) {
            throw new ValidationException(
                    Rejection.MALFORMED,
                    List.of(new FieldError(
                            "attempt",
                            run.attempt() == 0
                                    ? "run " + runId + " has had no attempt yet"
                                    : "must be between 1 and " + run.attempt() + ", the run's attempts so far")));
        }
        if (run.attempt() == 0) {
            throw new NotFoundException("run " + runId + " has no log yet (state " + run.state() + ")");
        }
        int n = attempt == null ? run.attempt() : attempt;
        long from = offset == null ? 0 : offset;
        Instant until = clock.instant().plusSeconds(waitSeconds == null ? 0 : waitSeconds);
        while (true) {
            if (n < run.attempt() || run.state() != RunState.RUNNING) {
                return ended(run, n, from);
            }
            Slice shipped = shipped(jobId, runId, n, from, false);
            Duration left = Duration.between(clock.instant(), until);
            if (shipped.nextOffset() > from || !left.isPositive()) {
                return shipped;
            }
            try {
                Duration poll = poll(chunkInterval);
                Thread.sleep(left.compareTo(poll) < 0 ? left : poll);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return shipped;
            }
            run = ownedJobs.existingRun(jobId, runId);
        }
    }

    /**
     * An ended attempt's log from {@code from} on: as stored with its outcome, or, when none was stored (its
     * executor died, the upload failed), what it shipped while it ran.
     */
    private Slice ended(Run run, int n, long from) {
        String runId = run.runId();
        Optional<byte[]> stored;
        if (n < run.attempt()) {
            stored = store.readLog(ArtifactStore.logKey(run.jobId(), runId, n));
        } else if (run.log() != null) {
            stored = Optional.of(run.log().getBytes(StandardCharsets.UTF_8));
        } else if (run.logKey() != null) {
            stored = Optional.of(store.readLog(run.logKey())
                    .orElseThrow(() -> new NotFoundException("the log of run " + runId + " has expired")));
        } else {
            stored = Optional.empty();
        }
        if (stored.isEmpty()) {
            Slice shipped = shipped(run.jobId(), runId, n, from, true);
            if (shipped.nextOffset() == 0) {
                throw new NotFoundException(
                        n < run.attempt()
                                ? "attempt " + n + " of run " + runId
                                        + " left no log (none was written, it expired, or it ended with its executor)"
                                : "run " + runId + " has no log (state " + run.state() + ")");
            }
            return shipped;
        }
        byte[] log = stored.get();
        if (from > log.length) {
            throw new ValidationException(
                    Rejection.MALFORMED,
                    List.of(new FieldError("offset", "must be at most " + log.length + ", the log's length")));
        }
        return new Slice(
                new String(Arrays.copyOfRange(log, (int) from, log.length), StandardCharsets.UTF_8), log.length, true);
    }

    /**
     * What attempt {@code n} shipped from {@code from} on, up to {@link #MAX_CHUNKS} chunks. Chunks follow each other
     * (a chunk whose upload answer was lost may be overlapped by the next, which starts where it started); a gap,
     * which only an attempt run twice under one number could leave, ends the answer. Complete when the attempt has
     * {@code ended} and every chunk after {@code from} was read.
     */
    private Slice shipped(String jobId, String runId, int n, long from, boolean ended) {
        List<LogChunk> chunks = store.chunks(jobId, runId, n, from, MAX_CHUNKS);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long at = from;
        boolean whole = chunks.size() < MAX_CHUNKS;
        for (LogChunk c : chunks) {
            if (c.end() <= at) {
                continue;
            }
            if (c.start() > at) {
                whole = false;
                break;
            }
            out.writeBytes(store.readBytes(c.key(), at - c.start()));
            at = c.end();
        }
        byte[] bytes = out.toByteArray();
        int keep = ended ? bytes.length : completeCharacters(bytes);
        return new Slice(new String(bytes, 0, keep, StandardCharsets.UTF_8), from + keep, ended && whole);
    }

    /**
     * How many of {@code b}'s bytes end on a character boundary: a multi-byte UTF-8 sequence cut short at the end is
     * left out, so that a client reading a running log piece by piece never sees a character split in two.
     */
    static int completeCharacters(byte[] b) {
        for (int i = b.length - 1; i >= Math.max(0, b.length - 3); i--) {
            int x = b[i] & 0xff;
            if (x < 0x80) {
                return b.length;
            }
            if (x >= 0xC0) {
                int length = x >= 0xF0 ? 4 : x >= 0xE0 ? 3 : 2;
                return i + length > b.length ? i : b.length;
            }
            // A continuation byte: its lead byte is further back.
        }
        return b.length;
    }
}
