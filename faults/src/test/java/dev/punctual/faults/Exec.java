package dev.punctual.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** An executor as a separate JVM ({@link FaultExecutor}), and the signals the faults send it. */
final class Exec {
    final String id;
    final Process process;
    final Path out;
    final Path err;

    private Exec(String id, Process process, Path out, Path err) {
        this.id = id;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static Exec start(Stage s, String id, Map<String, String> inject) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-Xss512k",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-Djava.net.preferIPv4Stack=true",
                "-cp",
                ChildClasspath.get(s.dir.getParent().resolve("classpath")),
                "-Dfaults.settings=" + FaultSettings.encode(s.overrides),
                "-Dfaults.inject=" + FaultSettings.encode(inject),
                FaultExecutor.class.getName(),
                s.target.dynamodb().toString(),
                s.target.sqs().toString(),
                s.target.s3().toString(),
                s.settings.deployment().prefix(),
                id,
                s.dir.resolve("work-" + id).toString()));
        Path out = s.dir.resolve(id + ".out");
        Path err = s.dir.resolve(id + ".err");
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            return new Exec(id, p, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void awaitReady() {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> lines().stream().anyMatch(l -> l.startsWith("READY")) || !alive());
        if (!alive()) {
            throw new IllegalStateException("executor " + id + " died while starting: " + tail(err));
        }
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    List<String> lines() {
        try {
            return Files.exists(out) ? Files.readAllLines(out) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    List<String> faultLines() {
        return lines().stream().filter(l -> l.startsWith("FAULT")).toList();
    }

    /** kill -9: no shutdown hook, no cleanup; the binaries it started are orphaned, not killed. */
    void kill9() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(10));
    }

    void stop() {
        signal("STOP");
    }

    void cont() {
        signal("CONT");
    }

    void term() {
        signal("TERM");
    }

    boolean awaitExit(Duration d) {
        try {
            return process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The process's peak resident memory (VmHWM) in KiB, or -1 once it is gone. */
    long peakRssKb() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private void signal(String sig) {
        if (!alive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-s", sig, Long.toString(pid()))
                    .inheritIO()
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String tail(Path p) {
        try {
            List<String> l = Files.exists(p) ? Files.readAllLines(p) : List.of();
            return String.join("\n", l.subList(Math.max(0, l.size() - 30), l.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
