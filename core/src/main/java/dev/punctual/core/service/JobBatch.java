package dev.punctual.core.service;

import java.util.List;

/** The jobs created by one batch request ({@code POST /v1/jobs/batch}), in the order they were asked for. */
public record JobBatch(List<JobView> jobs) {
    /** The most jobs one batch may create. */
    public static final int MAX_JOBS = 100;

    /** A batch of job definitions, each as {@code POST /v1/jobs} takes it. */
    public record Request(List<JobRequest> jobs) {}
}
