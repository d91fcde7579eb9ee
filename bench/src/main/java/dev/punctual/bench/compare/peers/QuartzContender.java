package dev.punctual.bench.compare.peers;

import java.time.Duration;
import java.util.List;
import org.quartz.Scheduler;

/**
 * Quartz on a private PostgreSQL: {@code nodes} JDBC-clustered scheduler JVMs, jobs written by a client scheduler of
 * the same store in this JVM (never started) with {@link Scheduler#scheduleJobs}, one transaction per batch.
 */
public final class QuartzContender extends PeerContender {
    /** The idle wait a node gets unless told: db-scheduler's poll in the comparison. */
    public static final Duration DEFAULT_IDLE_WAIT = Duration.ofSeconds(1);

    /**
     * Jobs per scheduleJobs call. Each call holds the cluster's TRIGGER_ACCESS row lock (lockOnInsert, the default)
     * while it inserts, so batches go one at a time, and a smaller batch lets the nodes acquire in between.
     */
    static final int BATCH = 100;

    private Scheduler client;

    public QuartzContender() {
        this(DEFAULT_IDLE_WAIT);
    }

    /** {@code idleWait} ({@code org.quartz.scheduler.idleWaitTime}, at least 1 s) is Quartz's polling interval. */
    public QuartzContender(Duration idleWait) {
        super(PeerNode.Peer.QUARTZ, idleWait);
        if (idleWait.toMillis() < 1000) {
            throw new IllegalArgumentException("Quartz's idle wait is at least 1 s, not " + idleWait);
        }
    }

    @Override
    public String name() {
        return "Quartz " + version("org.quartz-scheduler", "quartz") + " (JDBC clustered, " + postgresName()
                + ", idle wait " + text(poll) + shape() + ")";
    }

    @Override
    void createSchema(String jdbc, String user) throws Exception {
        Jdbc.execute(jdbc, user, QuartzPeer.schema());
    }

    @Override
    int clientConnections() {
        return 4;
    }

    @Override
    void openClient(String jdbc, String user) throws Exception {
        client = QuartzPeer.client(jdbc, user);
    }

    @Override
    void closeClient() throws Exception {
        if (client != null) {
            client.shutdown(false);
        }
    }

    @Override
    public void schedule(List<Due> dues) throws Exception {
        requireStarted();
        for (int i = 0; i < dues.size(); i += BATCH) {
            List<Due> batch = dues.subList(i, Math.min(dues.size(), i + BATCH));
            client.scheduleJobs(QuartzPeer.jobs(batch, setup.binary(), setup.startsFile()), false);
        }
    }
}
