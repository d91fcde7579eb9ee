package dev.punctual.bench;

import dev.punctual.bench.compare.ProcessCost;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Runs a trial a fixed number of times on a fixed number of platform threads, as fast as they can go: a warmup
 * whose timings are dropped, then the measured runs. Wall time runs from the moment every thread is ready until
 * the last run ends; each run's own time is taken around it, so queueing for the cores shows in both. A run that
 * throws {@link RunFailed} is counted (by reason) and timed like the others; any other exception stops them all.
 */
public final class FixedThreads {
    /** The whole run's time, recorded for every trial under this name. */
    public static final String TOTAL = "total";

    private FixedThreads() {}

    /** One run of what is measured. It may time steps of its own with {@link Steps#record}. */
    @FunctionalInterface
    public interface Trial {
        void run(Steps steps) throws Exception;
    }

    /** The run itself went wrong (the binary exited non-zero, say): counted and shown, not fatal. */
    public static final class RunFailed extends Exception {
        public RunFailed(String reason) {
            super(reason);
        }
    }

    /** Where a trial records the durations of its named steps; one per thread. */
    public static final class Steps {
        private final Map<String, Samples> samples = new HashMap<>();
        private final Map<String, Integer> failures = new HashMap<>();

        public void record(String step, long durationNanos) {
            samples.computeIfAbsent(step, s -> new Samples()).add(durationNanos);
        }
    }

    /**
     * What a measured phase took: its wall time, the samples of every step ({@link #TOTAL} included), and how
     * many runs failed, by reason.
     */
    public record Measurement(
            int threads,
            int runs,
            long wallNanos,
            double cpuSeconds,
            Map<String, Samples> steps,
            Map<String, Integer> failures) {
        public int failed() {
            return failures.values().stream().mapToInt(Integer::intValue).sum();
        }

        public double runsPerSecond() {
            return runs * 1e9 / wallNanos;
        }

        /**
         * CPU milliseconds a run: this JVM's, and its children's once reaped (every process a run starts, the
         * binary's own included), over the measured phase; 10 ms ticks, so meaningful over hundreds of runs.
         */
        public double cpuMsPerRun() {
            return cpuSeconds * 1000 / runs;
        }

        public Samples.Summary summary(String step) {
            Samples s = steps.get(step);
            if (s == null) {
                throw new IllegalArgumentException("no step " + step);
            }
            return s.summary();
        }
    }

    /**
     * Runs {@code warmup} then {@code runs} trials on {@code threads} threads; worker {@code i} (0-based) runs the
     * trials of {@code trialFor.apply(i)}. The first failure stops every worker and is thrown.
     */
    public static Measurement measure(int threads, int warmup, int runs, IntFunction<Trial> trialFor) throws Exception {
        List<Trial> trials = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            trials.add(trialFor.apply(i));
        }
        if (warmup > 0) {
            phase(trials, warmup);
        }
        return phase(trials, runs);
    }

    private static Measurement phase(List<Trial> trials, int runs) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(trials.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Steps> perThread = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < trials.size(); i++) {
            Trial trial = trials.get(i);
            Steps steps = new Steps();
            perThread.add(steps);
            workers.add(Thread.ofPlatform().name("bench-" + i).start(() -> {
                ready.countDown();
                try {
                    go.await();
                    while (next.getAndIncrement() < runs) {
                        long t0 = System.nanoTime();
                        try {
                            trial.run(steps);
                        } catch (RunFailed f) {
                            steps.failures.merge(f.getMessage(), 1, Integer::sum);
                        }
                        steps.record(TOTAL, System.nanoTime() - t0);
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                    next.set(runs);
                }
            }));
        }
        ready.await();
        List<ProcessHandle> self = List.of(ProcessHandle.current());
        double cpu0 = ProcessCost.cpuSeconds(self);
        long start = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long wall = System.nanoTime() - start;
        double cpu = ProcessCost.cpuSeconds(self) - cpu0;
        if (failure.get() != null) {
            throw failure.get();
        }
        Map<String, Samples> merged = new LinkedHashMap<>();
        Map<String, Integer> failures = new TreeMap<>();
        for (Steps s : perThread) {
            s.samples.forEach((step, samples) ->
                    merged.computeIfAbsent(step, k -> new Samples()).merge(samples));
            s.failures.forEach((reason, n) -> failures.merge(reason, n, Integer::sum));
        }
        return new Measurement(trials.size(), runs, wall, cpu, merged, failures);
    }
}
