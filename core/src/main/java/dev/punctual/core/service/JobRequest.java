package dev.punctual.core.service;

import dev.punctual.core.schedule.ScheduleSpec;
import java.util.List;
import java.util.Map;

/** The body of {@code POST /v1/jobs}, as received; {@link JobService} validates it. */
public record JobRequest(String name, String binaryId, List<String> args, Map<String, String> env,
                         ScheduleSpec schedule, Integer timeoutSeconds, Integer maxAttempts) {
}
