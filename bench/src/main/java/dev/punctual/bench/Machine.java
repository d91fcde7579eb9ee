package dev.punctual.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What a result depends on besides the code: printed above every report, so numbers are never read bare. */
public final class Machine {
    private Machine() {}

    /** Markdown bullet lines: date, commit, machine, kernel, JVM, and what else ran on it. */
    public static List<String> describe() {
        Runtime.Version v = Runtime.version();
        List<String> out = new ArrayList<>();
        out.add("- date: " + Instant.now().truncatedTo(ChronoUnit.SECONDS));
        out.add("- commit: " + System.getProperty("punctual.bench.commit", "unknown (run through bin/bench)"));
        out.add("- cpu: " + Runtime.getRuntime().availableProcessors() + " cores available to the JVM, " + cpuModel());
        out.add("- kernel: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                + System.getProperty("os.arch") + ")");
        out.add("- java: " + v + " (" + System.getProperty("java.vm.name") + ", " + System.getProperty("java.vendor")
                + "), " + System.getProperty("java.home"));
        out.add("- jvm options: "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        out.add("- load average at start: " + firstLine(Path.of("/proc/loadavg")) + "; " + processCount()
                + " processes");
        out.add("- user: uid " + effectiveUid());
        return out;
    }

    /** The first line a command prints, or why there is none. */
    public static String version(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text;
            try (InputStream in = p.getInputStream()) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            p.waitFor(10, TimeUnit.SECONDS);
            return text.lines().findFirst().orElse("(no output)").strip();
        } catch (IOException e) {
            return "(not found: " + command[0] + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    /** The effective uid, from /proc/self/status; -1 when it cannot be read. */
    public static int effectiveUid() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("Uid:"))
                    .map(l -> Integer.parseInt(l.split("\\s+")[2]))
                    .findFirst()
                    .orElse(-1);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst()
                    .orElse("model unknown");
        } catch (IOException e) {
            return "model unknown";
        }
    }

    private static String firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().findFirst().orElse("?").strip();
        } catch (IOException e) {
            return "?";
        }
    }

    /** Live entries under /proc: the executor's scans read every one of them per run. */
    public static int processCount() {
        int n = 0;
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path ignored : pids) {
                n++;
            }
        } catch (IOException e) {
            return -1;
        }
        return n;
    }
}
