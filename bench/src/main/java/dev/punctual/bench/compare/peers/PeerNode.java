package dev.punctual.bench.compare.peers;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One node of a peer scheduler, in its own JVM: starts the scheduler, prints {@code ready} on stdout, and runs until
 * SIGTERM, when its shutdown hook stops the scheduler (waiting for running executions).
 */
@Command(
        name = "peer-node",
        mixinStandardHelpOptions = true,
        description = "Runs one node of db-scheduler or Quartz, executing the bench's runs, until SIGTERM.")
public final class PeerNode implements Callable<Integer> {
    /** The peers a node can be. */
    public enum Peer {
        DBSCHEDULER,
        QUARTZ;

        /** Its {@code --system} value. */
        public String option() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Option(names = "--system", required = true, description = "dbscheduler or quartz.")
    Peer system;

    @Option(names = "--jdbc", required = true, description = "The store's JDBC URL.")
    String jdbc;

    @Option(names = "--user", required = true, description = "The store's user (trust authentication).")
    String user;

    @Option(names = "--threads", defaultValue = "4", description = "Execution threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(
            names = "--poll-ms",
            defaultValue = "1000",
            description = "db-scheduler's polling interval, Quartz's idle wait, in ms (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    @Option(names = "--name", required = true, description = "The node's name (scheduler name, instance id).")
    String name;

    @Override
    public Integer call() throws Exception {
        AutoCloseable node = switch (system) {
            case DBSCHEDULER -> DbSchedulerPeer.startNode(jdbc, user, threads, Duration.ofMillis(pollMillis), name);
            case QUARTZ -> QuartzPeer.startNode(jdbc, user, threads, Duration.ofMillis(pollMillis), name);
        };
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(node), name + "-stop"));
        // A bench killed outright (SIGKILL) cannot stop its nodes: they stop themselves when it is gone.
        ProcessHandle.current().parent().ifPresent(parent -> {
            var unused = parent.onExit().thenRun(() -> System.exit(0));
        });
        System.out.println("ready");
        System.out.flush();
        forever.await();
        return 0;
    }

    private void stop(AutoCloseable node) {
        try {
            node.close();
            System.err.println("peers: " + name + " stopped");
        } catch (Exception e) {
            System.err.println("peers: " + name + " did not stop cleanly: " + e);
            e.printStackTrace();
        }
    }

    public static void main(String[] args) {
        int exit = new CommandLine(new PeerNode())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        System.exit(exit);
    }
}
