package dev.punctual.bench.compare.peers;

import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * db-scheduler on a private PostgreSQL: {@code nodes} scheduler JVMs polling with lock-and-fetch every {@code poll},
 * one-time executions written by a {@link SchedulerClient} in this JVM in JDBC batches.
 */
public final class DbSchedulerContender extends PeerContender {
    /** db-scheduler's own batch size ({@link SchedulerClient#DEFAULT_BATCH_SIZE}): one JDBC batch, one commit. */
    static final int BATCH = SchedulerClient.DEFAULT_BATCH_SIZE;

    /** Batches in flight at once: inserts of distinct rows do not block each other. */
    static final int CLIENT_THREADS = 2;

    private HikariDataSource clientPool;
    private SchedulerClient client;
    private final OneTimeTask<RunCommand> task = DbSchedulerPeer.task();

    public DbSchedulerContender(Duration poll) {
        super(PeerNode.Peer.DBSCHEDULER, poll);
    }

    @Override
    public String name() {
        return "db-scheduler " + version("com.github.kagkarlsson", "db-scheduler") + " (" + postgresName()
                + ", lock-and-fetch, poll " + text(poll) + shape() + ")";
    }

    @Override
    void createSchema(String jdbc, String user) throws Exception {
        Jdbc.execute(jdbc, user, DbSchedulerPeer.SCHEMA);
    }

    @Override
    int clientConnections() {
        return CLIENT_THREADS;
    }

    @Override
    void openClient(String jdbc, String user) {
        clientPool = Jdbc.pool(jdbc, user, CLIENT_THREADS, "bench-client");
        client = DbSchedulerPeer.client(clientPool);
    }

    @Override
    void closeClient() {
        if (clientPool != null) {
            clientPool.close();
        }
    }

    @Override
    public void schedule(List<Due> dues) throws Exception {
        requireStarted();
        List<List<SchedulableInstance<?>>> batches = new ArrayList<>();
        for (int i = 0; i < dues.size(); i += BATCH) {
            List<SchedulableInstance<?>> batch = new ArrayList<>();
            for (Due due : dues.subList(i, Math.min(dues.size(), i + BATCH))) {
                RunCommand command = new RunCommand(setup.binary().toString(), due.args(setup.startsFile()));
                batch.add(SchedulableInstance.of(task.instance(due.key(), command), due.at()));
            }
            batches.add(batch);
        }
        if (batches.isEmpty()) {
            return;
        }
        ExecutorService threads = Executors.newFixedThreadPool(Math.min(CLIENT_THREADS, batches.size()));
        try {
            List<Future<?>> written = new ArrayList<>();
            for (List<SchedulableInstance<?>> batch : batches) {
                written.add(threads.submit(() -> client.scheduleBatch(batch)));
            }
            for (Future<?> f : written) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            threads.shutdownNow();
        }
    }
}
