package dev.punctual.faults;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The binaries' own testimony. Every attempt of the suite's binaries appends {@code start <job> <run> <attempt>
 * <epoch-ns> <pid>} when it begins and {@code end <job> <run> <attempt> <epoch-ns> <pid> <exit>} as its last act, to
 * one file shared by every process (short {@code >>} appends are atomic on Linux). An attempt that was killed never
 * writes its end; for it a monitor thread records when its process was first seen dead (gone, a zombie, or its pid
 * reused), polling every few milliseconds. That instant is at or after the real death, so the interval it closes is
 * never shorter than the truth: an overlap can be over-reported, never hidden.
 */
final class Witness implements AutoCloseable {
    /** One attempt as its binary witnessed it. */
    static final class Attempt {
        final String jobId;
        final String runId;
        final int attempt;
        final long pid;
        final long startNs;
        volatile Long endNs;
        volatile Integer exit;
        volatile Long deathNs;
        volatile String procStart;

        Attempt(String jobId, String runId, int attempt, long pid, long startNs) {
            this.jobId = jobId;
            this.runId = runId;
            this.attempt = attempt;
            this.pid = pid;
            this.startNs = startNs;
        }

        String run() {
            return jobId + "/" + runId;
        }

        /** When the attempt was over: its own end record, else when it was seen dead, else never (still open). */
        long until() {
            Long e = endNs;
            if (e != null) {
                return e;
            }
            Long d = deathNs;
            return d != null ? d : Long.MAX_VALUE;
        }

        boolean open() {
            return endNs == null && deathNs == null;
        }

        @Override
        public String toString() {
            return run() + " attempt " + attempt + " pid " + pid + " [" + startNs + ", "
                    + (endNs != null ? endNs + " end" : deathNs != null ? deathNs + " seen dead" : "open") + "]";
        }
    }

    private final Path file;
    private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();
    private final StringBuilder partial = new StringBuilder();
    private final ScheduledExecutorService monitor;
    private final List<String> malformed = new ArrayList<>();
    private long offset;

    Witness(Path file) throws IOException {
        this.file = file;
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[0]);
        monitor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("witness-monitor")
                .priority(Thread.MAX_PRIORITY)
                .factory());
        monitor.scheduleWithFixedDelay(this::poll, 0, 5, TimeUnit.MILLISECONDS);
    }

    Path file() {
        return file;
    }

    private synchronized void poll() {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long len = raf.length();
            if (len > offset) {
                byte[] buf = new byte[(int) (len - offset)];
                raf.seek(offset);
                raf.readFully(buf);
                offset = len;
                partial.append(new String(buf, StandardCharsets.UTF_8));
                int nl;
                while ((nl = partial.indexOf("\n")) >= 0) {
                    String line = partial.substring(0, nl);
                    partial.delete(0, nl + 1);
                    parse(line);
                }
            }
        } catch (IOException e) {
            // the file is created before any binary runs; a transient read error is retried on the next poll
        }
        long now = nowNs();
        for (Attempt a : attempts.values()) {
            if (a.open()) {
                String st = procStart(a.pid);
                if (a.procStart == null && st != null) {
                    a.procStart = st;
                }
                if (st == null || !st.equals(a.procStart)) {
                    a.deathNs = now;
                }
            }
        }
    }

    private void parse(String line) {
        String[] f = line.trim().split(" ");
        try {
            if (f[0].equals("start") && f.length >= 6) {
                Attempt a = new Attempt(f[1], f[2], Integer.parseInt(f[3]), Long.parseLong(f[5]), Long.parseLong(f[4]));
                a.procStart = procStart(a.pid);
                attempts.put(key(f[1], f[2], f[3], f[5]), a);
            } else if (f[0].equals("end") && f.length >= 7) {
                Attempt a = attempts.get(key(f[1], f[2], f[3], f[5]));
                if (a == null) {
                    malformed.add("end without start: " + line);
                } else {
                    a.exit = Integer.parseInt(f[6]);
                    a.endNs = Long.parseLong(f[4]);
                }
            } else if (!line.isBlank()) {
                malformed.add(line);
            }
        } catch (NumberFormatException e) {
            malformed.add(line);
        }
    }

    private static String key(String job, String run, String attempt, String pid) {
        return job + "/" + run + "#" + attempt + "#" + pid;
    }

    /** Wall-clock nanoseconds, the clock {@code date +%s%N} reads in the binaries. */
    static long nowNs() {
        java.time.Instant t = java.time.Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /**
     * The process's start time (field 22 of /proc/pid/stat), or null when it is gone or a zombie: a zombie has
     * exited, it only waits for its parent to collect its status.
     */
    static String procStart(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            if (f[0].equals("Z") || f[0].equals("X")) {
                return null;
            }
            return f[19];
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Every attempt witnessed so far (reads the file first). */
    List<Attempt> attempts() {
        poll();
        return new ArrayList<>(attempts.values());
    }

    long starts() {
        return attempts().size();
    }

    /** Attempts whose process is still alive and wrote no end. */
    long openAlive() {
        return attempts().stream().filter(Attempt::open).count();
    }

    List<String> malformed() {
        poll();
        return List.copyOf(malformed);
    }

    @Override
    public void close() throws InterruptedException {
        monitor.shutdown();
        monitor.awaitTermination(1, TimeUnit.SECONDS);
        poll();
    }
}
