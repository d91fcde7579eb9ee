package dev.punctual.wiring;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.service.BinaryService;
import dev.punctual.core.service.DeadLetterService;
import dev.punctual.core.service.JobLifecycle;
import dev.punctual.core.service.JobService;
import dev.punctual.core.service.RunsAcrossJobs;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The parts of core's graph that the HTTP API's classes use, one bean each, so that a resource's constructor says
 * what it calls and it is handed nothing else. Core builds the graph once ({@link Punctual}); these only name its
 * parts (each is the one instance core made, whatever scope CDI gives the field).
 */
@Singleton
public class ServiceProducer {
    @Produces
    final JobService jobService;

    @Produces
    final JobLifecycle lifecycle;

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

    ServiceProducer(Punctual p) {
        this.jobService = p.jobService;
        this.lifecycle = p.lifecycle;
        this.binaries = p.binaries;
        this.runsAcrossJobs = p.runsAcrossJobs;
        this.deadLetters = p.deadLetters;
        this.jobs = p.jobs;
        this.store = p.store;
    }
}
