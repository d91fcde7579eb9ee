package dev.punctual.core.schedule;

/**
 * A schedule as users write it and as it is stored: {@code {"type":"now"}}, {@code {"type":"once","at":…}},
 * {@code {"type":"interval","every":"PT10S","start":…,"end":…}}. {@link Schedules#parse} validates it.
 */
@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
public record ScheduleSpec(String type, String at, String every, String start, String end) {
}
