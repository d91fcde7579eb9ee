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
 * parts.
 */
public class ServiceProducer {

    @Produces
    @Singleton
    JobService jobService(Punctual p) {
        return p.jobService;
    }

    @Produces
    @Singleton
    JobLifecycle lifecycle(Punctual p) {
        return p.lifecycle;
    }

    @Produces
    @Singleton
    BinaryService binaries(Punctual p) {
        return p.binaries;
    }

    @Produces
    @Singleton
    RunsAcrossJobs runsAcrossJobs(Punctual p) {
        return p.runsAcrossJobs;
    }

    @Produces
    @Singleton
    DeadLetterService deadLetters(Punctual p) {
        return p.deadLetters;
    }

    @Produces
    @Singleton
    JobRepository jobs(Punctual p) {
        return p.jobs;
    }

    @Produces
    @Singleton
    ArtifactStore store(Punctual p) {
        return p.store;
    }
}
