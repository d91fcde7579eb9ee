package dev.punctual.bench.compare.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import javax.sql.DataSource;

/** db-scheduler as a peer: its table, its one task (run the binary), a node, and a client. */
final class DbSchedulerPeer {
    static final String TASK = "stamp";

    /**
     * db-scheduler's documented PostgreSQL table with the indexes it ships (its README links
     * {@code db-scheduler/src/test/resources/postgresql_tables.sql}, unchanged at v16.12.0).
     */
    static final String SCHEMA = """
            create table scheduled_tasks (
              task_name text not null,
              task_instance text not null,
              task_data bytea,
              execution_time timestamp with time zone not null,
              picked BOOLEAN not null,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures INT,
              last_heartbeat timestamp with time zone,
              version BIGINT not null,
              priority SMALLINT,
              PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
            CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
            CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);
            """;

    /**
     * lock-and-fetch's fractions of the thread count: fetch again once no more executions are queued than threads,
     * up to four per thread. The README's values "for high throughput (i.e. keep threads busy)": the comparison is
     * about bursts, and Quartz gets batch acquisition likewise. Its caveat (a queued execution's heartbeat is not
     * kept) bites only a run that waits 4 heartbeat intervals, 20 min, in a queue. On 2 shared cores (1,000 runs,
     * 2 nodes × 4, three tries each) it made no difference beyond the noise against the "normal usage" 0.5, 1.0:
     * 252-372 against 210-344 starts/s.
     */
    static final double LOWER_LIMIT = 1.0;

    static final double UPPER_LIMIT = 4.0;

    /**
     * How long stop() waits for running executions (default 30 min): a run is a stamp that exits within
     * milliseconds, and the bench's close waits for the node to exit.
     */
    static final Duration SHUTDOWN_MAX_WAIT = Duration.ofSeconds(10);

    private DbSchedulerPeer() {}

    /**
     * The one task: runs the binary its data names. A non-zero exit fails the execution, which db-scheduler logs and,
     * by a one-time task's default, retries 5 minutes later.
     */
    static OneTimeTask<RunCommand> task() {
        return Tasks.oneTime(TASK, RunCommand.class).execute((instance, context) -> {
            try {
                instance.getData().runOrFail();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + instance.getId(), e);
            }
        });
    }

    /** Starts a scheduler with {@code threads} execution threads; closing it stops the scheduler, then its pool. */
    static AutoCloseable startNode(String jdbc, String user, int threads, Duration poll, String name) {
        // Quartz's rule of thumb (threads + 3) for both peers: db-scheduler's poller, heartbeats and dead-execution
        // checks take connections beside the executions.
        HikariDataSource pool = Jdbc.pool(jdbc, user, threads + 3, name);
        Scheduler scheduler = Scheduler.create(pool, task())
                .threads(threads)
                .pollingInterval(poll)
                // SELECT ... FOR UPDATE SKIP LOCKED picks and locks in one statement; PostgreSQL supports it.
                .pollUsingLockAndFetch(LOWER_LIMIT, UPPER_LIMIT)
                // The default name is the host's, the same for every node on this machine: picked_by would not
                // tell them apart.
                .schedulerName(new SchedulerName.Fixed(name))
                // Strings, not Java serialization (the default).
                .serializer(RunCommand.SERIALIZER)
                .shutdownMaxWait(SHUTDOWN_MAX_WAIT)
                .build();
        scheduler.start();
        return () -> {
            try {
                scheduler.stop();
            } finally {
                pool.close();
            }
        };
    }

    /** A client that only writes executions (the bench's side): the same task and serializer as the nodes. */
    static SchedulerClient client(DataSource pool) {
        return SchedulerClient.Builder.create(pool, task())
                .serializer(RunCommand.SERIALIZER)
                .build();
    }
}
