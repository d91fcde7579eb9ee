package dev.punctual.core.exec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sandbox's launcher ({@code core/src/main/c/launcher.c}, the helper run as {@code --serve}): one process per
 * executor JVM and helper, root's, that starts every run with a uid of its own. A start is a fork of that small
 * process and one exec of the binary, where a start from the JVM is a spawn ({@code jspawnhelper}'s exec) and the
 * helper's exec; the launcher copies the run's output to its log (no thread here per run), keeps an empty network
 * namespace per uid (none made and torn down per run), and at the run's end kills every process of its uid itself
 * (no scan of {@code /proc}). Requests go as frames on its input; its answers come as lines, read by the thread
 * that started it, which lives exactly as long as it: the launcher's parent-death signal follows that thread.
 *
 * <p>Should the launcher die, its runs die with it (their parent-death signal); each is reported as killed, and
 * the next start makes a new launcher.
 */
final class Launcher {
    private static final System.Logger LOG = System.getLogger(Launcher.class.getName());
    /** One per helper, shared by every runner of this JVM. */
    private static final Map<Path, Launcher> RUNNING = new ConcurrentHashMap<>();
    /** How long a start or a release waits for its answer: the launcher answers in microseconds when alive. */
    private static final Duration ANSWER = Duration.ofSeconds(30);

    private final Process process;
    private final OutputStream requests;
    private final Map<Long, Launched> runs = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    private Launcher(Process process) {
        this.process = process;
        this.requests = process.getOutputStream();
    }

    /** The launcher of {@code helper}, started on first use and again after it died. */
    static Launcher of(Path helper) throws IOException {
        Launcher l = RUNNING.get(helper);
        if (l != null && !l.ended.isDone()) {
            return l;
        }
        synchronized (RUNNING) {
            l = RUNNING.get(helper);
            if (l == null || l.ended.isDone()) {
                l = start(helper);
                RUNNING.put(helper, l);
            }
            return l;
        }
    }

    private static Launcher start(Path helper) throws IOException {
        CompletableFuture<Launcher> started = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("launcher").start(() -> {
            Launcher l;
            try {
                l = new Launcher(ProcessRunner.spawn(new ProcessBuilder(
                                helper.toString(),
                                "--serve",
                                Long.toString(ProcessHandle.current().pid()))
                        .redirectError(ProcessBuilder.Redirect.INHERIT)));
            } catch (IOException | RuntimeException e) {
                started.completeExceptionally(e);
                return;
            }
            started.complete(l);
            l.readAnswers();
        });
        try {
            return started.join();
        } catch (CompletionException e) {
            throw new IOException("cannot start the sandbox's launcher " + helper, e.getCause());
        }
    }

    /**
     * Starts a run: {@code args} the helper's own (its path first, then its options, {@code --}, the binary and
     * its arguments; {@code -u} required), {@code env} the binary's whole environment, its output to {@code log}
     * up to {@code cap} bytes. The run is started, and held at its gate if {@code -g} is among the options.
     */
    Launched start(List<String> args, Map<String, String> env, Path cwd, Path log, long cap, int uid, Duration grace)
            throws IOException {
        long id = ids.incrementAndGet();
        Launched run = new Launched(id, log, cap, uid, grace);
        runs.put(id, run);
        List<String> fields = new ArrayList<>(List.of(
                "start",
                Long.toString(id),
                cwd.toAbsolutePath().toString(),
                log.toAbsolutePath().toString(),
                Long.toString(cap),
                Integer.toString(args.size())));
        fields.addAll(args);
        fields.add(Integer.toString(env.size()));
        env.forEach((k, v) -> fields.add(k + "=" + v));
        try {
            send(fields);
            run.pid = answer(run.started);
            return run;
        } catch (IOException e) {
            runs.remove(id);
            throw e;
        }
    }

    /** The launcher's pid. */
    long pid() {
        return process.pid();
    }

    /** One request as the launcher reads it: its fields NUL-ended, after their length (4 bytes, little-endian). */
    static byte[] frame(List<String> fields) throws IOException {
        int length = 0;
        List<byte[]> encoded = new ArrayList<>(fields.size());
        for (String f : fields) {
            if (f.indexOf('\0') >= 0) {
                throw new IOException("a NUL in a run's argument or environment");
            }
            byte[] b = f.getBytes(StandardCharsets.UTF_8);
            encoded.add(b);
            length += b.length + 1;
        }
        ByteBuffer frame =
                ByteBuffer.allocate(4 + length).order(ByteOrder.LITTLE_ENDIAN).putInt(length);
        encoded.forEach(b -> frame.put(b).put((byte) 0));
        return frame.array();
    }

    private void send(List<String> fields) throws IOException {
        byte[] frame = frame(fields);
        synchronized (requests) {
            if (ended.isDone()) {
                throw new IOException("the sandbox's launcher has ended");
            }
            requests.write(frame);
            requests.flush();
        }
    }

    private void sendQuietly(String... fields) {
        try {
            send(List.of(fields));
        } catch (IOException e) {
            // The launcher is gone, and so is the run (its parent-death signal): its exit is reported as killed.
            LOG.log(Level.DEBUG, "launcher request " + fields[0] + " not sent", e);
        }
    }

    private static <T> T answer(CompletableFuture<T> f) throws IOException {
        try {
            return f.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("the sandbox's launcher did not answer in " + ANSWER);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the sandbox's launcher", e);
        }
    }

    /** Reads the launcher's answers until it ends; then every run not reported is reported killed. */
    private void readAnswers() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                answered(line.split(" ", 3));
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "cannot read the sandbox's launcher", e);
        }
        synchronized (requests) {
            ended.complete(null);
        }
        process.destroyForcibly();
        LOG.log(Level.WARNING, "the sandbox's launcher ended; its runs died with it");
        runs.values().forEach(r -> {
            r.started.completeExceptionally(new IOException("the sandbox's launcher ended"));
            r.released.complete(false);
            // The runs got the parent-death signal; whatever of their uids is left, a scan finds.
            r.exit.complete(new Exit(128 + 9, true, r.loggedSoFar(), false));
        });
        runs.clear();
    }

    private void answered(String[] a) {
        Launched run = a.length > 1 && a[1].chars().allMatch(Character::isDigit) && !a[1].isEmpty()
                ? runs.get(Long.parseLong(a[1]))
                : null;
        switch (a[0]) {
            case "started" -> {
                if (run != null) {
                    run.started.complete(Long.parseLong(a[2]));
                }
            }
            case "released" -> {
                if (run != null) {
                    run.released.complete("1".equals(a[2]));
                }
            }
            case "exit" -> {
                if (run != null) {
                    String[] f = a[2].split(" ", -1);
                    runs.remove(run.id);
                    // Its gate went with it: a release asked meanwhile is answered after this, to no one.
                    run.released.complete(false);
                    run.exit.complete(
                            new Exit(Integer.parseInt(f[0]), "1".equals(f[1]), Long.parseLong(f[2]), "1".equals(f[3])));
                }
            }
            case "refused" -> {
                String why = a.length > 2 ? a[2] : "";
                if (run != null) {
                    runs.remove(run.id);
                    run.started.completeExceptionally(new IOException("the sandbox's launcher refused it: " + why));
                } else {
                    LOG.log(Level.WARNING, "the sandbox's launcher refused a request: " + why);
                }
            }
            default -> LOG.log(Level.WARNING, "the sandbox's launcher said: " + String.join(" ", a));
        }
    }

    /** How a run ended, as the launcher reported it: {@code left}, a process of its uid outlived the kills. */
    record Exit(int code, boolean left, long written, boolean truncated) {}

    /** A run the launcher started. */
    final class Launched extends ProcessRunner.Handle {
        private final long id;
        private final Path log;
        private final long cap;
        private final int uid;
        private final CompletableFuture<Long> started = new CompletableFuture<>();
        private final CompletableFuture<Boolean> released = new CompletableFuture<>();
        private final CompletableFuture<Exit> exit = new CompletableFuture<>();
        private volatile long pid;
        private volatile boolean releaseAsked;

        private Launched(long id, Path log, long cap, int uid, Duration grace) {
            super(grace);
            this.id = id;
            this.log = log;
            this.cap = cap;
            this.uid = uid;
        }

        @Override
        public Optional<Integer> exitCode() {
            return exit.isDone() ? Optional.of(exit.join().code()) : Optional.empty();
        }

        @Override
        public boolean running() {
            return !exit.isDone();
        }

        @Override
        public long pid() {
            return pid;
        }

        /** What the log holds so far: the launcher writes it unbuffered, so its size, up to the cap. */
        @Override
        public long written() {
            return exit.isDone() ? exit.join().written() : loggedSoFar();
        }

        private long loggedSoFar() {
            try {
                return Math.min(Files.size(log), cap);
            } catch (IOException e) {
                return 0;
            }
        }

        @Override
        public void closeGate() {
            sendQuietly("close", Long.toString(id));
        }

        @Override
        public boolean release() {
            releaseAsked = true;
            if (exit.isDone()) {
                return false;
            }
            sendQuietly("release", Long.toString(id));
            try {
                return answer(released);
            } catch (IOException e) {
                return false;
            }
        }

        @Override
        boolean exitsWithin(Duration wait) throws InterruptedException {
            try {
                exit.get(wait.toMillis(), TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException never) {
                // Only ever completed normally.
                throw new IllegalStateException(never);
            }
        }

        @Override
        void signal(String name) {
            if (!releaseAsked) {
                // Held at its gate: closing it ends the run unstarted, even before its session is made.
                closeGate();
            }
            sendQuietly("signal", Long.toString(id), name);
        }

        @Override
        public ProcessRunner.Result await(Duration timeout) throws InterruptedException {
            awaitExitOrKill(timeout);
            Exit e = exit.join();
            if (e.left()) {
                // Something of the uid outlived the launcher's kills (or the launcher died): the JVM looks itself.
                UidPool.killAll(uid);
            } else {
                UidPool.noneLeft(uid);
            }
            return new ProcessRunner.Result(e.code(), killedBecause(), e.written(), e.truncated());
        }
    }
}
