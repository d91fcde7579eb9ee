package dev.punctual.core.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.punctual.core.job.Expectation;
import dev.punctual.core.schedule.ScheduleSpec;

/**
 * A job's expectation as a client writes it and as the API shows it: {@code {"every": "PT25H"}} (a run must succeed
 * at least that often) or {@code {"by": <a schedule>}} (one must succeed before each of its occurrences, since the
 * one before; e.g. {@code {"type": "cron", "expression": "0 6 * * *", "timezone": "Europe/Paris"}}). Exactly one.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ExpectSpec(String every, ScheduleSpec by) {
    static ExpectSpec of(Expectation e) {
        return e == null
                ? null
                : new ExpectSpec(e.every() == null ? null : e.every().toString(), e.by());
    }
}
