package dev.punctual.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one of the dashboard's browser tests ({@code local/browser/*.test.mjs}): node's test runner driving Debian's
 * headless Chromium through Playwright's library, against a local runner. Its TAP summary decides: every test in
 * the script must pass, and there must be some. Screenshots land in {@code local/target/dashboard-screenshots}.
 */
final class Browser {
    static final Path DIR = Path.of(System.getProperty("punctual.browser.dir", "browser"));
    static final Path SCREENSHOTS = Path.of(System.getProperty("punctual.screenshots", "target/dashboard-screenshots"));
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Pattern SUMMARY =
            Pattern.compile("^# (pass|fail|skipped|todo|cancelled) (\\d+)$", Pattern.MULTILINE);

    private Browser() {}

    /** Runs {@code script} with {@code env}; fails with its whole output unless {@code tests} tests ran and passed. */
    static void run(String script, int tests, Map<String, String> env) throws Exception {
        if (!Files.isExecutable(CHROMIUM)) {
            throw new IllegalStateException("the dashboard tests need Chromium at " + CHROMIUM
                    + " (Debian: apt-get install chromium; .ci/run installs it), or CHROMIUM set to one");
        }
        ensurePlaywright();
        ProcessBuilder pb = new ProcessBuilder("node", "--test", "--test-reporter=tap", "--test-concurrency=1", script)
                .directory(DIR.toFile());
        pb.environment().putAll(env);
        pb.environment()
                .put("PUNCTUAL_SCREENSHOTS", SCREENSHOTS.toAbsolutePath().toString());
        pb.environment().put("CHROMIUM", CHROMIUM.toString());
        Finished run = finish(pb, Duration.ofMinutes(5));
        String out = run.output();
        System.out.println("---- " + script + " ----\n" + out);
        assertThat(run.ended()).as("%s ended within 5 minutes", script).isTrue();
        Map<String, Integer> summary = summary(out);
        assertThat(run.exitCode()).as("%s exit code; output:\n%s", script, out).isZero();
        assertThat(summary)
                .as("%s: TAP summary", script)
                .containsEntry("pass", tests)
                .containsEntry("fail", 0)
                .containsEntry("skipped", 0)
                .containsEntry("cancelled", 0);
    }

    static Map<String, Integer> summary(String tap) {
        Map<String, Integer> counts = new HashMap<>();
        Matcher m = SUMMARY.matcher(tap);
        while (m.find()) {
            counts.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        return counts;
    }

    /** Installs playwright-core from the lock file on first use, as the infra tests do with their parser. */
    private static synchronized void ensurePlaywright() throws IOException, InterruptedException {
        if (Files.isDirectory(DIR.resolve("node_modules/playwright-core"))) {
            return;
        }
        Finished npm = finish(
                new ProcessBuilder(List.of("npm", "ci", "--no-audit", "--no-fund")).directory(DIR.toFile()),
                Duration.ofMinutes(5));
        if (!npm.ended() || npm.exitCode() != 0) {
            throw new IllegalStateException(
                    "npm ci in " + DIR + " failed (Node.js and npm are needed):\n" + npm.output());
        }
    }

    record Finished(boolean ended, int exitCode, String output) {}

    /**
     * Runs {@code pb} to its end or {@code limit}, whichever is first (then it is killed). Its output goes to a file,
     * not a pipe: reading a pipe to its end would wait for the process however long it hangs.
     */
    private static Finished finish(ProcessBuilder pb, Duration limit) throws IOException, InterruptedException {
        Path log = Files.createTempFile("punctual-browser", ".log");
        try {
            Process p =
                    pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
            }
            return new Finished(
                    ended, ended ? p.exitValue() : -1, new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
