package dev.punctual.bench.compare.peers;

import dev.punctual.bench.compare.Contender.Due;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.quartz.JobBuilder;
import org.quartz.JobDataMap;
import org.quartz.JobDetail;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.simpl.SystemPropertyInstanceIdGenerator;

/** Quartz as a peer: a JDBC-clustered store on PostgreSQL, its tables, a node, a client, and the jobs to schedule. */
final class QuartzPeer {
    /** The cluster's name (SCHED_NAME in every table): nodes and client share it. */
    static final String CLUSTER = "punctual-bench";

    static final String GROUP = "bench";

    /** The tables Quartz ships for PostgreSQL, inside its jar. */
    static final String TABLES = "org/quartz/impl/jdbcjobstore/tables_postgres.sql";

    /**
     * A trigger later than this is "misfired": no node acquires it until the misfire handler, 20 at a time,
     * rewrites it. The default 60 s would let a slow burst's tail wait on that handler; an hour never does in a
     * benchmark, so every late trigger is simply fired late (and measured).
     */
    static final Duration MISFIRE_THRESHOLD = Duration.ofHours(1);

    private static final String NODE_ID_PROPERTY = "punctual.bench.quartz.node";

    private QuartzPeer() {}

    static String schema() throws IOException {
        try (InputStream in = Scheduler.class.getClassLoader().getResourceAsStream(TABLES)) {
            if (in == null) {
                throw new IOException(TABLES + " is not in the quartz jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** What every scheduler of the cluster shares; each non-default says why. */
    static Properties properties(String jdbc, String user, int threads, Duration idleWait) {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", CLUSTER);
        p.setProperty("org.quartz.scheduler.instanceId", "AUTO");
        // How long a node sleeps when nothing is due within that long (default 30 s): the clients are other
        // processes, whose new triggers no node is told about, so this is Quartz's polling interval.
        p.setProperty("org.quartz.scheduler.idleWaitTime", Long.toString(idleWait.toMillis()));
        // Acquire up to one trigger per thread in one locked transaction (default 1): what a tuned Quartz does
        // for bursts. More than 1 also makes acquisition take the TRIGGER_ACCESS lock, as it must.
        p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(threads));
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", Long.toString(MISFIRE_THRESHOLD.toMillis()));
        // Job data as string properties, not a Java-serialized map.
        p.setProperty("org.quartz.jobStore.useProperties", "true");
        p.setProperty("org.quartz.jobStore.dataSource", "db");
        p.setProperty("org.quartz.dataSource.db.provider", "hikaricp");
        p.setProperty("org.quartz.dataSource.db.driver", "org.postgresql.Driver");
        p.setProperty("org.quartz.dataSource.db.URL", jdbc);
        p.setProperty("org.quartz.dataSource.db.user", user);
        p.setProperty("org.quartz.dataSource.db.password", "");
        // Quartz's documented minimum: the worker threads plus three (default 10).
        p.setProperty("org.quartz.dataSource.db.maxConnections", Integer.toString(threads + 3));
        return p;
    }

    /** Starts a cluster node with {@code threads} worker threads; closing it waits for running jobs. */
    static AutoCloseable startNode(String jdbc, String user, int threads, Duration idleWait, String name)
            throws SchedulerException {
        Properties p = properties(jdbc, user, threads, idleWait);
        // AUTO's default id is the host name plus the current millisecond: two nodes started together on one host
        // could get the same id and check in as one. AUTO from a property holding the node's name cannot.
        System.setProperty(NODE_ID_PROPERTY, name);
        p.setProperty(
                "org.quartz.scheduler.instanceIdGenerator.class", SystemPropertyInstanceIdGenerator.class.getName());
        p.setProperty("org.quartz.scheduler.instanceIdGenerator.systemPropertyName", NODE_ID_PROPERTY);
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        scheduler.start();
        return () -> scheduler.shutdown(true);
    }

    /**
     * A scheduler of the same clustered store that is never started: it only writes jobs (under the cluster's row
     * locks), never acquires triggers or checks in. Its one worker thread never runs anything.
     */
    static Scheduler client(String jdbc, String user) throws SchedulerException {
        return new StdSchedulerFactory(properties(jdbc, user, 1, Duration.ofSeconds(30))).getScheduler();
    }

    /** One non-durable job per due with one simple trigger, fired once even when late. */
    static Map<JobDetail, Set<? extends Trigger>> jobs(List<Due> dues, Path binary, Path startsFile) {
        Map<JobDetail, Set<? extends Trigger>> jobs = new LinkedHashMap<>();
        for (Due due : dues) {
            RunCommand command = new RunCommand(binary.toString(), due.args(startsFile));
            JobDetail job = JobBuilder.newJob(RunJob.class)
                    .withIdentity(due.key(), GROUP)
                    .usingJobData(new JobDataMap(command.toJobData()))
                    .build();
            Trigger trigger = TriggerBuilder.newTrigger()
                    .withIdentity(due.key(), GROUP)
                    .forJob(job)
                    .startAt(Date.from(due.at()))
                    .withSchedule(SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
                    .build();
            jobs.put(job, Set.of(trigger));
        }
        return jobs;
    }
}
