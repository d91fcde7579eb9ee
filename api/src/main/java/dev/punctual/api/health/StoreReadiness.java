package dev.punctual.api.health;

import dev.punctual.core.job.JobRepository;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the jobs table answers: every request reads or writes it first. One eventually consistent read of a
 * key no job has (half a read unit); the call the API may already make (no further IAM permission). Liveness is
 * Quarkus's own (the process answers). Served at {@code /q/health/ready} by the local runner; the Lambda has it
 * too, though API Gateway routes only {@code /v1}.
 */
@Readiness
@ApplicationScoped
public class StoreReadiness implements HealthCheck {
    private final JobRepository jobs;

    StoreReadiness(JobRepository jobs) {
        this.jobs = jobs;
    }

    /** A job id of the right shape that no job can have (ids are random). */
    static final String PROBE = "job_readinessprobe00000";

    @Override
    public HealthCheckResponse call() {
        try {
            jobs.get(PROBE, false);
            return HealthCheckResponse.up("jobs table");
        } catch (RuntimeException e) {
            return HealthCheckResponse.named("jobs table")
                    .down()
                    .withData("error", e.getClass().getSimpleName())
                    .build();
        }
    }
}
