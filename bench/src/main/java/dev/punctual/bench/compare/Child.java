package dev.punctual.bench.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A process a contender started: its output goes to a file, which is where "ready" is looked for and errors shown. */
public record Child(String name, Process process, Path log) implements AutoCloseable {
    /**
     * Starts {@code command} with {@code env} added, stdout and stderr to {@code <dir>/<name>.log}, on the CPU of its
     * {@code role} when {@code --pin} is on.
     */
    public static Child start(String name, Pin role, List<String> command, Map<String, String> env, Path dir)
            throws IOException {
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(role.wrap(command))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().putAll(env);
        return new Child(name, pb.start(), log);
    }

    /** The java command of this JVM: children run on the same JDK as the bench. */
    public static String java() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Waits until the log has a line containing {@code marker}; fails with the log's tail if the process ends. */
    public void awaitLine(String marker, Duration timeout) throws IOException, InterruptedException {
        awaitLine(line -> line.contains(marker), "a line with '" + marker + "'", timeout);
    }

    /** Waits until a line of the log passes {@code test}; fails with the log's tail if the process ends first. */
    public void awaitLine(Predicate<String> test, String what, Duration timeout)
            throws IOException, InterruptedException {
        Instant end = Instant.now().plus(timeout);
        while (Instant.now().isBefore(end)) {
            if (Files.readAllLines(log, StandardCharsets.UTF_8).stream().anyMatch(test)) {
                return;
            }
            if (!process.isAlive()) {
                throw new IOException(name + " exited with " + process.exitValue() + " before it was ready; " + log
                        + " ends:\n" + tail());
            }
            Thread.sleep(100);
        }
        throw new IOException(name + " printed no " + what + " within " + timeout + "; " + log + " ends:\n" + tail());
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** SIGTERM, without waiting: several children stop at once, then {@link #close} waits for each. */
    public void terminate() {
        process.destroy();
    }

    /** SIGTERM (again, harmlessly), then SIGKILL (the whole tree) after 30 s; nothing when it has ended. */
    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
