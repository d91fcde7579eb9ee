package dev.punctual.bench.dispatch;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * The CPU the sweep itself uses in this process, apart from the emulators beside it: the threads that carry
 * virtual threads (the dispatch's chains and the sweep's queries run on them; the emulators run on platform
 * threads of their own: Jetty's, Pekko's) and the sweep workers' own threads. What a sweeper Lambda would spend,
 * its SDK included, less the JVM's own (JIT, GC) threads, which a Lambda also pays for.
 */
final class SweeperCpu {
    static final String WORKER_PREFIX = "sweep-worker-";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SweeperCpu() {}

    /** CPU so far of the threads above that are alive now (carrier threads are long-lived). */
    static long nanos() {
        long sum = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t == null) {
                continue;
            }
            String name = t.getThreadName();
            if (name.startsWith("ForkJoinPool-") || name.startsWith(WORKER_PREFIX)) {
                long cpu = THREADS.getThreadCpuTime(t.getThreadId());
                if (cpu > 0) {
                    sum += cpu;
                }
            }
        }
        return sum;
    }
}
