package dev.punctual.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code punctual} command as a user runs it, against the packaged local runner: a binary pushed, a job applied
 * from YAML, triggered, its run and log read back, a dead letter retried; exit codes and messages of what fails.
 */
class CliIT {
    @AutoClose
    private static LocalSystem system;

    private static Path dir;
    private static Path binary;

    @BeforeAll
    static void start(@TempDir Path tmp) throws Exception {
        dir = tmp;
        system = new LocalSystem("-Dpunctual.retry-base=PT1S");
        binary = LocalSystem.binary(tmp);
    }

    record Result(int code, String out, String err) {
        JsonNode json() throws Exception {
            return LocalSystem.JSON.readTree(out);
        }
    }

    /** The command, in this JVM, with the runner's URL in its environment (as PUNCTUAL_API_URL would be). */
    private static Result punctual(String... args) {
        return punctual(Map.of("PUNCTUAL_API_URL", system.api), dir.resolve("home"), args);
    }

    /** The command, in this JVM, with {@code env} as its environment and {@code home} as the user's home. */
    static Result punctual(Map<String, String> env, Path home, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), env, home, args);
        return new Result(code, out.toString(), err.toString());
    }

    private static Result ok(String... args) {
        Result r = punctual(args);
        assertThat(r.code())
                .as("punctual %s: %s", String.join(" ", args), r.err())
                .isZero();
        return r;
    }

    private static String pushed() throws Exception {
        return ok("binary", "push", binary.toString(), "-o", "json")
                .json()
                .get("id")
                .asText();
    }

    private static Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void aBinaryPushedTwiceIsUploadedOnce() throws Exception {
        // Bytes of this test's own (the other tests push the plain binary).
        Path own = dir.resolve("own");
        Files.write(own, Files.readAllBytes(binary));
        Files.writeString(own, "\n" + System.nanoTime(), java.nio.file.StandardOpenOption.APPEND);
        Result first = ok("binary", "push", own.toString(), "--name", "hello-cli");
        assertThat(first.out()).contains("uploaded:", "true").contains("name:", "hello-cli");
        assertThat(first.err()).doesNotContain("already uploaded");

        Result again = ok("binary", "push", own.toString(), "--name", "hello-cli");
        assertThat(again.err()).contains("already uploaded as " + id(first));
        assertThat(again.out()).contains("id:", id(first));

        Result renamed = ok("binary", "push", own.toString(), "--name", "hello-renamed", "--no-progress");
        assertThat(renamed.err())
                .as("a new name, the same bytes: not uploaded again")
                .contains("already uploaded:");
        assertThat(ok("binary", "list").out()).contains("hello-cli", "hello-renamed");
        assertThat(ok("binary", "list", "--sha256", sha(first), "-o", "json")
                        .json()
                        .findValuesAsText("name"))
                .contains("hello-cli", "hello-renamed");
    }

    private static String id(Result described) {
        return field(described, "id");
    }

    private static String sha(Result described) {
        return field(described, "sha256");
    }

    /** A field of a {@code name: value} description. */
    private static String field(Result described, String name) {
        return described
                .out()
                .lines()
                .filter(l -> l.startsWith(name + ":"))
                .map(l -> l.substring(name.length() + 1).strip())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aJobAppliedFromYamlRunsWhenTriggeredAndItsLogReadsBack() throws Exception {
        String binaryId = pushed();
        Path job = file("job.yaml", """
                name: cli-hello
                binaryId: %s
                schedule:
                  type: cron
                  expression: "0 3 * * *"
                  timezone: Europe/Paris
                labels:
                  team: cli
                """.formatted(binaryId));

        Result created = ok("job", "apply", "-f", job.toString());
        assertThat(created.err()).startsWith("created job_");
        assertThat(created.out()).contains("version:", "1").contains("cron 0 3 * * * Europe/Paris");
        Files.writeString(job, Files.readString(job) + "args: [\"0\"]\n");
        Result updated = ok("job", "apply", "-f", job.toString());
        assertThat(updated.err()).contains("updated").contains("to version 2");
        assertThat(ok("job", "apply", "-f", job.toString()).err())
                .as("the same file again")
                .startsWith("unchanged job_")
                .contains("(version 2)");
        // What get prints, apply takes back as it is, in either format: nothing changes.
        for (String format : List.of("yaml", "json")) {
            Path got = file(
                    "got." + format, ok("job", "get", "cli-hello", "-o", format).out());
            assertThat(ok("job", "apply", "-f", got.toString()).err())
                    .as("job get -o %s, applied", format)
                    .startsWith("unchanged job_")
                    .contains("(version 2)");
        }
        assertThat(ok("job", "get", "cli-hello", "-o", "yaml").out())
                .contains("name: \"cli-hello\"", "priority: \"normal\"", "team: \"cli\"");

        Result listed = ok("job", "list", "--label", "team=cli");
        assertThat(listed.out().lines().toList())
                .first()
                .satisfies(h -> assertThat(h).startsWith("ID").contains("NAME", "STATE", "SCHEDULE", "NEXT RUN"));
        assertThat(listed.out()).contains("cli-hello", "ACTIVE", "team=cli");
        assertThat(ok("job", "list", "-o", "json").json().findValuesAsText("name"))
                .contains("cli-hello");
        assertThat(ok("job", "next", "cli-hello", "-n", "3").out().lines()).hasSize(4);

        JsonNode triggered = ok("job", "trigger", "cli-hello", "--priority", "high", "-o", "json")
                .json();
        assertThat(triggered.get("priority").asText()).isEqualTo("high");
        String runId = triggered.get("runId").asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> ok("run", "get", "cli-hello", runId, "-o", "json")
                        .json()
                        .get("state")
                        .asText()
                        .equals("SUCCEEDED"));
        assertThat(ok("run", "list", "cli-hello").out()).contains(runId, "SUCCEEDED", "1/3");
        assertThat(ok("logs", "cli-hello", runId).out())
                .contains("hello from run " + runId + " attempt 1")
                .contains("stderr is captured too");
        assertThat(ok("logs", "cli-hello", runId, "--follow").out()).contains("hello from run " + runId);

        assertThat(ok("job", "pause", "cli-hello", "--note", "maintenance").out())
                .contains("PAUSED")
                .contains("maintenance");
        assertThat(ok("job", "resume", "cli-hello", "--catch-up", "skip").out()).contains("ACTIVE");
        assertThat(ok("job", "delete", "cli-hello").out()).startsWith("deleted job_");
        assertThat(punctual("job", "get", "cli-hello").code())
                .as("no live job has that name now")
                .isEqualTo(3);
        assertThat(ok("job", "list").out()).as("deleted: not listed").doesNotContain("cli-hello");
        // A job may name its binary, the newest of that name, or of that name and content.
        JsonNode pushedOne = ok("binary", "get", binaryId, "-o", "json").json();
        Path byName = file("by-name.yaml", "name: cli-named\nbinary: hello\nschedule: {type: now}\n");
        assertThat(ok("job", "apply", "-f", byName.toString(), "-o", "json")
                        .json()
                        .path("binaryId")
                        .asText())
                .isEqualTo(ok("binary", "list", "-o", "json")
                        .json()
                        .get(0)
                        .path("id")
                        .asText());
        Path bySha = file(
                "by-sha.yaml",
                "name: cli-sha\nbinary: hello@sha256:"
                        + pushedOne.path("sha256").asText() + "\nschedule: {type: now}\n");
        assertThat(ok("job", "apply", "-f", bySha.toString(), "-o", "json")
                        .json()
                        .path("binaryId")
                        .asText())
                .isNotEmpty();
        Result unknown = punctual(
                "job",
                "apply",
                "-f",
                file("none.yaml", "name: x\nbinary: nope\nschedule: {type: now}\n")
                        .toString());
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("none of yours is named nope");
        assertThat(ok("job", "list", "--all").out()).contains("cli-hello", "DELETED");
    }

    @Test
    void aDeadRunIsListedAndRetriedFromTheDeadLetters() throws Exception {
        String binaryId = pushed();
        Path job = file("dead.json", """
                {"name": "cli-dead", "binaryId": "%s", "args": ["3"], "maxAttempts": 1, "schedule": {"type": "now"}}
                """.formatted(binaryId));
        String jobId = ok("job", "apply", "-f", job.toString(), "-o", "json")
                .json()
                .get("id")
                .asText();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> ok("dlq", "list", "-o", "json").out().contains(jobId));
        // Listings name the job; the search across jobs finds its run too.
        assertThat(ok("dlq", "list").out()).contains("cli-dead").doesNotContain(jobId);
        assertThat(ok("run", "list", "--state", "DEAD", "--limit", "100").out())
                .contains("cli-dead")
                .contains("JOB");
        JsonNode dead = null;
        for (JsonNode d : ok("dlq", "list", "-o", "json").json()) {
            if (d.get("jobId").asText().equals(jobId)) {
                dead = d;
            }
        }
        assertThat(dead).isNotNull();
        assertThat(dead.get("exitCode").asInt()).isEqualTo(3);
        String runId = dead.get("runId").asText();

        JsonNode retried = ok("dlq", "retry", jobId, runId, "-o", "json").json();
        assertThat(retried.get("state").asText()).isIn("QUEUED", "RUNNING", "FAILED", "DEAD");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> ok("run", "get", jobId, runId, "-o", "json")
                                .json()
                                .get("attempt")
                                .asInt()
                        == 2);
    }

    @Test
    void whatFailsSaysWhyAndExitsWithACodeThatMeansIt() throws Exception {
        Result missing = punctual("job", "get", "job_aaaaaaaaaaaaaaaaaaaa");
        assertThat(missing.code()).isEqualTo(3);
        assertThat(missing.err()).isEqualTo("error: Not found: job job_aaaaaaaaaaaaaaaaaaaa does not exist\n");
        assertThat(punctual("job", "get", "no-such-name").err()).contains("no job is named no-such-name");

        Path bad = file("bad.yaml", """
                name: cli-bad
                binaryId: %s
                schedule: {type: cron, expression: "61 * * * *"}
                """.formatted(pushed()));
        Result refused = punctual("job", "apply", "-f", bad.toString());
        assertThat(refused.code()).as(refused.err()).isEqualTo(1);
        assertThat(refused.err()).contains("schedule.expression");
        assertThat(punctual("job", "get", "cli-bad").code())
                .as("a refused apply creates nothing")
                .isEqualTo(3);

        Path once = file("active.yaml", """
                name: cli-active
                binaryId: %s
                schedule: {type: interval, every: PT1H}
                """.formatted(pushed()));
        ok("job", "apply", "-f", once.toString());
        Result conflict = punctual("job", "resume", "cli-active");
        assertThat(conflict.code())
                .as("resuming a job that is not paused: %s", conflict.err())
                .isEqualTo(4);

        assertThat(punctual("job", "frobnicate").code()).isEqualTo(2);
        assertThat(punctual("binary", "push", dir.resolve("nothing-here").toString())
                        .code())
                .isEqualTo(2);
        Result unreachable = punctual("job", "list", "--api-url", "http://127.0.0.1:1");
        assertThat(unreachable.code()).isEqualTo(6);
        assertThat(unreachable.err()).contains("cannot reach http://127.0.0.1:1 (the API's URL, from --api-url)");
    }

    @Test
    void aScheduleIsPreviewedWithItsDaylightSavingEdges() {
        Result r = ok(
                "schedule",
                "preview",
                "--cron",
                "30 2 * * *",
                "--timezone",
                "Europe/Paris",
                "--from",
                "2026-03-27T00:00:00Z",
                "-n",
                "3");
        List<String> lines = new ArrayList<>(r.out().lines().toList());
        assertThat(lines).hasSize(4);
        assertThat(lines.getFirst()).contains("AT (UTC)", "LOCAL", "DST");
        assertThat(String.join("\n", lines))
                .as("02:30 does not exist in Paris on 29 March 2026")
                .contains("gap-shifted");
    }

    @Test
    void helpAndCompletionAreThereForEveryCommand() {
        assertThat(ok("--help").out()).contains("binary", "job", "run", "logs", "dlq", "schedule", "Exit codes");
        assertThat(ok("job", "apply", "--help").out()).contains("--file");
        assertThat(ok("completion").out())
                .contains("complete -F _punctual_with_jobs")
                .contains("_complete_punctual");
    }

    @Test
    void aDryRunShowsTheChangeAsADiffAndChangesNothing() throws Exception {
        String text = """
                name: cli-dry
                binaryId: %s
                maxAttempts: 3
                schedule: {type: interval, every: PT1H}
                """.formatted(pushed());
        Path job = file("dry.yaml", text);
        Result wouldCreate = ok("job", "apply", "--dry-run", "-f", job.toString());
        assertThat(wouldCreate.err()).contains("would create cli-dry");
        assertThat(wouldCreate.out()).contains("+name: \"cli-dry\"");
        assertThat(punctual("job", "get", "cli-dry").code())
                .as("a dry run creates nothing")
                .isEqualTo(3);

        ok("job", "apply", "-f", job.toString());
        assertThat(ok("job", "apply", "--dry-run", "-f", job.toString()).err()).contains("unchanged");
        file("dry.yaml", text.replace("maxAttempts: 3", "maxAttempts: 5"));
        Result diff = ok("job", "apply", "--dry-run", "-f", job.toString());
        assertThat(diff.out().lines().toList())
                .contains("-maxAttempts: 3", "+maxAttempts: 5")
                .noneMatch(l -> l.startsWith("-name") || l.startsWith("+name"));
        JsonNode stored = ok("job", "get", "cli-dry", "-o", "json").json();
        assertThat(stored.get("maxAttempts").asInt()).isEqualTo(3);
        assertThat(stored.get("version").asLong()).isEqualTo(1);
    }

    @Test
    void aWatchedListPrintsWhatChangesUntilInterrupted() throws Exception {
        ok("job", "apply", "-f", file("watch.yaml", """
                name: cli-watch
                binaryId: %s
                schedule: {type: interval, every: PT1H}
                """.formatted(pushed())).toString());
        StringWriter out = new StringWriter();
        Thread watching = new Thread(() -> Main.run(
                new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true),
                Map.of("PUNCTUAL_API_URL", system.api),
                dir.resolve("home"),
                "job",
                "list",
                "--name-prefix",
                "cli-watch",
                "--watch",
                "--interval",
                "1"));
        watching.start();
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString().lines().anyMatch(l -> l.contains("cli-watch") && l.contains("ACTIVE")));
            assertThat(out.toString()).startsWith("ID");
            ok("job", "pause", "cli-watch");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString().lines().anyMatch(l -> l.contains("cli-watch") && l.contains("PAUSED")));
            // Only what changed after the first table: one header.
            assertThat(out.toString().lines().filter(l -> l.startsWith("ID"))).hasSize(1);
        } finally {
            watching.interrupt();
            watching.join(Duration.ofSeconds(30));
        }
        assertThat(watching.isAlive()).as("the watch ends when interrupted").isFalse();
    }

    @Test
    void bashCompletesAJobArgumentWithTheNamesOfYourJobs() throws Exception {
        ok("job", "apply", "-f", file("complete.yaml", """
                name: cli-complete-me
                binaryId: %s
                schedule: {type: interval, every: PT1H}
                """.formatted(pushed())).toString());
        Path script = file("completion.bash", ok("completion").out());
        // The command as the completion calls it (COMP_WORDS[0]): this JVM's classpath holds the CLI.
        Path command = file(
                "punctual",
                "#!/bin/sh\nexec '" + ProcessHandle.current().info().command().orElseThrow() + "' -cp '"
                        + System.getProperty("java.class.path") + "' dev.punctual.cli.Main \"$@\"\n");
        command.toFile().setExecutable(true);
        assertThat(complete(script, command, "job get cli-comp")).contains("cli-complete-me");
        assertThat(complete(script, command, "run list --state DEAD cli-comp")).contains("cli-complete-me");
        assertThat(complete(script, command, "job list cli-comp")).doesNotContain("cli-complete-me");
    }

    /** What bash completes the last word of {@code line} with, through the completion script. */
    private static List<String> complete(Path script, Path command, String line) throws Exception {
        String bash = ". '" + script + "' 2>/dev/null; COMP_WORDS=('" + command + "' " + line + "); "
                + "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=\"${COMP_WORDS[*]}\"; "
                + "_punctual_with_jobs 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"";
        ProcessBuilder b = new ProcessBuilder("bash", "-c", bash).redirectError(ProcessBuilder.Redirect.DISCARD);
        b.environment().put("PUNCTUAL_API_URL", system.api);
        Process p = b.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines().toList();
    }
}
