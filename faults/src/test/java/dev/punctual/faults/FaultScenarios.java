package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.run.Run;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 4's fault-injection suite, one class per fault family: for each fault, a scenario submits short runs, runs
 * them on three executor processes and the sweeper, injects the fault, heals, drains and checks (see
 * {@link Checker}). The classes share one set of emulators and one table of every scenario, printed and written to
 * {@code target/fault-report.md} at the end ({@link FaultSuite}). Soak mode: {@code -Dfaults.soak=PT2H} repeats each
 * scenario for its share of that time; {@code -Dfaults.runs=N} sets the runs per scenario (default 85). Tests 1b,
 * 2b, 11b and 12b reproduce core bugs the suite found, since fixed: they stay as regression tests.
 */
@ExtendWith(FaultSuite.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class FaultScenarios {
    static final int RUNS = Integer.getInteger("faults.runs", 85);
    static final Duration SOAK = Duration.parse(System.getProperty("faults.soak", "PT0S"));
    /** Test methods sharing the soak time. */
    static final int SCENARIOS = 19;

    static final Duration DRAIN = Duration.ofSeconds(120);

    /** Set by {@link FaultSuite} on every test instance. */
    FaultSuite.Shared suite;

    /** The scenario that is running, which names its stage. */
    private String current;

    /** A fresh stage on the shared in-memory emulators, named after the scenario that is running. */
    Stage stage(Map<String, String> overrides) throws Exception {
        return stage(Stage.target(suite.aws()), overrides);
    }

    /** A fresh stage on other emulators, named after the scenario that is running. */
    Stage stage(AwsClients.Target target, Map<String, String> overrides) throws Exception {
        return new Stage(current, target, suite.root(), overrides);
    }

    /** What a scenario does on its stage: starts the actors, injects its fault, heals, drains and asserts. */
    @FunctionalInterface
    interface Cycle {
        void run(Stage s) throws Exception;
    }

    /** {@link #scenario(String, Map, Cycle)} with the suite's default timings. */
    void scenario(String name, Cycle cycle) throws Exception {
        scenario(name, Map.of(), cycle);
    }

    /**
     * A scenario on a fresh stage (timings overridden by {@code overrides}) whose row is the stage's check after the
     * cycle. When an assertion fails after the drain, the stage is checked again first, so the row of the failed
     * scenario carries every note the cycle wrote.
     */
    void scenario(String name, Map<String, String> overrides, Cycle cycle) throws Exception {
        scenario(name, () -> {
            try (Stage s = stage(overrides)) {
                try {
                    cycle.run(s);
                } catch (Throwable t) {
                    if (Stage.LAST.get() != null) {
                        recheck(s, t);
                    }
                    throw t;
                }
                return s.check();
            }
        });
    }

    /** Checks again for the report; a failure of that check must not hide the one being reported. */
    private static void recheck(Stage s, Throwable failure) {
        try {
            s.check();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Runs a scenario once, and in soak mode again until its share of the soak time is used; records the sum and
     * asserts the invariants every scenario shares.
     */
    void scenario(String name, Callable<Checker.Result> cycle) throws Exception {
        current = name;
        long until = System.nanoTime() + SOAK.dividedBy(SCENARIOS).toNanos();
        List<Checker.Result> all = new ArrayList<>();
        do {
            Checker.Result r;
            try {
                r = cycle.call();
                assertInvariants(r);
            } catch (Throwable t) {
                Checker.Result last = Stage.LAST.get();
                if (last != null) {
                    suite.report()
                            .add(new Checker.Result(
                                    name,
                                    last.runs(),
                                    last.lost(),
                                    last.overlapping(),
                                    last.duplicates(),
                                    last.extraStarts(),
                                    last.violations(),
                                    last.seconds(),
                                    last.problems(),
                                    Map.of(),
                                    Map.of(),
                                    "**FAILED**: "
                                            + String.valueOf(t.getMessage())
                                                    .lines()
                                                    .findFirst()
                                                    .orElse("") + "; " + last.notes(),
                                    last.findings()));
                }
                throw t;
            } finally {
                Stage.LAST.remove();
            }
            all.add(r);
        } while (System.nanoTime() < until);
        Checker.Result sum = all.get(0);
        if (all.size() > 1) {
            sum = new Checker.Result(
                    name,
                    all.stream().mapToInt(Checker.Result::runs).sum(),
                    all.stream().mapToInt(Checker.Result::lost).sum(),
                    all.stream().mapToInt(Checker.Result::overlapping).sum(),
                    all.stream().mapToInt(Checker.Result::duplicates).sum(),
                    all.stream().mapToInt(Checker.Result::extraStarts).sum(),
                    all.stream().mapToInt(Checker.Result::violations).sum(),
                    all.stream().mapToDouble(Checker.Result::seconds).sum(),
                    List.of(),
                    Map.of(),
                    Map.of(),
                    all.size() + " cycles; " + all.get(all.size() - 1).notes(),
                    all.stream().flatMap(x -> x.findings().stream()).toList());
        }
        suite.report().add(rename(sum, name));
    }

    static Checker.Result rename(Checker.Result r, String name) {
        return new Checker.Result(
                name,
                r.runs(),
                r.lost(),
                r.overlapping(),
                r.duplicates(),
                r.extraStarts(),
                r.violations(),
                r.seconds(),
                r.problems(),
                r.finalRuns(),
                r.attempts(),
                r.notes(),
                r.findings());
    }

    static void assertInvariants(Checker.Result r) {
        String problems = String.join(
                "\n  ", r.problems().subList(0, Math.min(40, r.problems().size())));
        assertThat(r.lost())
                .as("lost runs in %s:\n  %s", r.scenario(), problems)
                .isZero();
        assertThat(r.overlapping())
                .as("overlapping attempts in %s:\n  %s", r.scenario(), problems)
                .isZero();
        assertThat(r.violations())
                .as("violations in %s:\n  %s", r.scenario(), problems)
                .isZero();
    }

    /** How often the run's binary started, by the witness. */
    static int starts(Checker.Result r, String jobId, String runId) {
        return r.attempts().getOrDefault(jobId + "/" + runId, List.of()).size();
    }

    /** The run of a one-shot job, as the check found it. */
    static Run runOf(Checker.Result r, String jobId) {
        return r.finalRuns().values().stream()
                .filter(x -> x.jobId().equals(jobId))
                .findFirst()
                .orElseThrow();
    }
}
