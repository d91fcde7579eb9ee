package dev.punctual.wiring;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.exec.ExecutorFactory;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.service.BinaryService;
import dev.punctual.core.service.DeadLetterService;
import dev.punctual.core.service.JobBackfill;
import dev.punctual.core.service.JobDeletion;
import dev.punctual.core.service.JobLifecycle;
import dev.punctual.core.service.JobService;
import dev.punctual.core.service.RunsAcrossJobs;
import dev.punctual.core.sweep.Sweeper;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The parts of core's graph that the deployables' classes use, one bean each, so that a resource's, the sweep
 * handler's or the executor's constructor says what it calls and it is handed nothing else. Core builds the graph once ({@link Punctual}); these only name its
 * parts (each is the one instance core made, whatever scope CDI gives the field).
 */
@Singleton
public class ServiceProducer {
    @Produces
    final JobService jobService;

    @Produces
    final JobLifecycle lifecycle;

    @Produces
    final JobBackfill backfills;

    @Produces
    final JobDeletion deletions;

    @Produces
    final BinaryService binaries;

    @Produces
    final RunsAcrossJobs runsAcrossJobs;

    @Produces
    final DeadLetterService deadLetters;

    @Produces
    final JobRepository jobs;

    @Produces
    final ArtifactStore store;

    /** The sweep (the sweeper function, and the local runner's timer). */
    @Produces
    final Sweeper sweeper;

    /** An executor process's parts (the executor, and the local runner's executors). */
    @Produces
    final ExecutorFactory executors;

    /** Where run outcomes are published: what a stopping process flushes. */
    @Produces
    final RunNotices notices;

    ServiceProducer(Punctual p) {
        this.jobService = p.jobService;
        this.lifecycle = p.lifecycle;
        this.backfills = p.backfills;
        this.deletions = p.deletions;
        this.binaries = p.binaries;
        this.runsAcrossJobs = p.runsAcrossJobs;
        this.deadLetters = p.deadLetters;
        this.jobs = p.jobs;
        this.store = p.store;
        this.sweeper = p.sweeper;
        this.executors = p.executors;
        this.notices = p.notices;
    }
}
