package dev.punctual.core.service;

import dev.punctual.core.schedule.ScheduleSpec;

/** The body of {@code POST /v1/schedules/preview}: a schedule, how many occurrences (1–100, default 10), from. */
public record PreviewRequest(ScheduleSpec schedule, Integer count, String from) {}
