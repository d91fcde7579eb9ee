package dev.punctual.faults;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The total-queue check, after heal and drain. For every run the scenario's accepted jobs must have produced:
 * <ul>
 * <li><b>lost</b>: the run is missing, or not in the final state its binary dictates (SUCCEEDED for exit 0, DEAD
 *     for a binary that always fails, after exactly its attempts);</li>
 * <li><b>overlapping</b>: two witnessed attempts of the run whose [start, end] intervals intersect (a killed attempt
 *     ends when its process was seen dead; one never seen dead never ends);</li>
 * <li><b>duplicates</b>: the binary started more often than it dictates (1 for a success, maxAttempts for a binary
 *     that always fails): at-least-once at work, reported, not a failure by itself.</li>
 * </ul>
 * Also counted as violations: two processes started under the same attempt number (a fencing token granted twice),
 * starts of runs nobody accepted, runs in the table nobody accepted (or more occurrences than the schedule has; a run
 * an undone create left behind, with no job, never started, is a finding), and a
 * recorded outcome whose attempt never started, and an outcome written by another attempt than the run's current one
 * (the log key names the attempt that wrote it: a stale executor's write that won).
 */
final class Checker {
    record Result(
            String scenario,
            int runs,
            int lost,
            int overlapping,
            int duplicates,
            int extraStarts,
            int violations,
            double seconds,
            List<String> problems,
            Map<String, Run> finalRuns,
            Map<String, List<Witness.Attempt>> attempts,
            String notes,
            List<String> findings) {
        String row() {
            String n = notes + (findings.isEmpty() ? "" : "; " + findings.size() + " finding(s), see below");
            return String.format(
                    java.util.Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %.1f | %s |",
                    scenario,
                    runs,
                    lost,
                    overlapping,
                    duplicates,
                    seconds,
                    n.replace("|", "/"));
        }
    }

    private Checker() {}

    static Result check(Stage s) {
        List<String> problems = new ArrayList<>();
        List<String> findings = new ArrayList<>();
        List<Run> runs = s.allRuns();
        Map<String, List<Run>> byJob = runs.stream().collect(Collectors.groupingBy(Run::jobId));
        List<Witness.Attempt> attempts = s.witness.attempts();
        Map<String, List<Witness.Attempt>> byRun =
                attempts.stream().collect(Collectors.groupingBy(Witness.Attempt::run));
        Map<String, Run> finalRuns = new HashMap<>();
        runs.forEach(r -> finalRuns.put(r.jobId() + "/" + r.runId(), r));

        int total = 0;
        int lost = 0;
        int overlapping = 0;
        int duplicates = 0;
        int extraStarts = 0;
        int violations = 0;
        for (Stage.Expect e : s.expected.values()) {
            total += e.occurrences();
            List<Run> got = byJob.getOrDefault(e.jobId(), List.of());
            if (got.size() < e.occurrences()) {
                lost += e.occurrences() - got.size();
                problems.add("lost: job " + e.name() + " has " + got.size() + " of " + e.occurrences() + " runs");
            } else if (got.size() > e.occurrences()) {
                violations++;
                problems.add("extra runs: job " + e.name() + " has " + got.size() + " runs, its schedule "
                        + e.occurrences());
            }
            for (Run r : got) {
                String key = r.jobId() + "/" + r.runId();
                List<Witness.Attempt> as = byRun.getOrDefault(key, List.of());
                if (r.state() != e.finalState()) {
                    lost++;
                    problems.add("lost: " + e.name() + " " + key + " is " + r.state() + " (attempt " + r.attempt()
                            + ", error " + r.error() + "), its binary dictates " + e.finalState() + "; starts "
                            + as.size());
                }
                if (as.size() > e.dictatedStarts()) {
                    duplicates++;
                    extraStarts += as.size() - e.dictatedStarts();
                }
                if (r.state().terminal() && r.attempt() > 0 && as.stream().noneMatch(a -> a.attempt == r.attempt())) {
                    violations++;
                    problems.add("outcome of an attempt that never started: " + key + " attempt " + r.attempt());
                }
                if (r.state().terminal()
                        && r.logKey() != null
                        && !r.logKey().endsWith("/attempt-" + r.attempt() + ".log")) {
                    String own = dev.punctual.core.binary.ArtifactStore.logKey(r.jobId(), r.runId(), r.attempt());
                    if (s.api.store.size(own).isPresent()) {
                        // The current attempt uploaded its log, yet the outcome names another: that one wrote it.
                        violations++;
                        problems.add("a stale attempt's result won: " + key + " is at attempt " + r.attempt()
                                + " but its outcome carries the log of " + r.logKey());
                    } else {
                        findings.add("log of an earlier attempt shown: " + key + " ended " + r.state() + " at attempt "
                                + r.attempt() + " (whose log upload failed) but names " + r.logKey());
                    }
                }
                Map<Integer, Long> perAttempt =
                        as.stream().collect(Collectors.groupingBy(a -> a.attempt, Collectors.counting()));
                perAttempt.forEach((attempt, n) -> {
                    if (n > 1) {
                        problems.add("fencing token granted twice: " + key + " attempt " + attempt + " started " + n
                                + " times");
                    }
                });
                violations +=
                        (int) perAttempt.values().stream().filter(n -> n > 1).count();
                List<Witness.Attempt> sorted = as.stream()
                        .sorted(Comparator.comparingLong(a -> a.startNs))
                        .toList();
                boolean overlap = false;
                for (int i = 0; i < sorted.size(); i++) {
                    for (int j = i + 1; j < sorted.size(); j++) {
                        Witness.Attempt a = sorted.get(i);
                        Witness.Attempt b = sorted.get(j);
                        if (b.startNs < a.until()) {
                            overlap = true;
                            problems.add("overlap: " + a + " and " + b);
                        }
                    }
                }
                if (overlap) {
                    overlapping++;
                }
            }
        }
        for (Run r : runs) {
            if (!s.expected.containsKey(r.jobId())) {
                if (leftByAnUndoneCreate(s, r, byRun)) {
                    findings.add("a run left by a create answered with an error (its undo failed too): " + r.jobId()
                            + "/" + r.runId() + " " + r.state() + ", no job, never started");
                    continue;
                }
                violations++;
                problems.add("a run nobody accepted: " + r.jobId() + "/" + r.runId() + " " + r.state());
            }
        }
        for (Witness.Attempt a : attempts) {
            if (!finalRuns.containsKey(a.run()) || !s.expected.containsKey(a.jobId)) {
                violations++;
                problems.add("a start of a run nobody accepted: " + a);
            }
        }
        s.witness.malformed().forEach(l -> problems.add("malformed witness line: " + l));
        violations += s.witness.malformed().size();
        return new Result(
                s.name,
                total,
                lost,
                overlapping,
                duplicates,
                extraStarts,
                violations,
                s.seconds(),
                List.copyOf(problems),
                finalRuns,
                byRun,
                String.join("; ", s.notes),
                List.copyOf(findings));
    }

    /**
     * A run whose create was answered with an error and whose undo failed as well (the store failing throughout):
     * the create writes the run before the job, so such a run has no job. It is harmless only if it never started
     * and cannot: withdrawn by the executor that claimed it (CANCELLED, as the run of a deleted job), or not claimed
     * yet (an executor will withdraw it). Anything else of a job nobody accepted is a violation.
     */
    private static boolean leftByAnUndoneCreate(Stage s, Run r, Map<String, List<Witness.Attempt>> byRun) {
        boolean harmless = r.state() == RunState.CANCELLED
                || (r.attempt() == 0 && (r.state() == RunState.SCHEDULED || r.state() == RunState.QUEUED));
        return harmless
                && byRun.getOrDefault(r.jobId() + "/" + r.runId(), List.of()).isEmpty()
                && s.api.jobs.get(r.jobId()).isEmpty();
    }
}
