package dev.punctual.core.schedule;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A schedule as users write it and as it is stored: {@code {"type":"now"}}, {@code {"type":"once","at":…}},
 * {@code {"type":"interval","every":"PT10S","start":…,"end":…}},
 * {@code {"type":"cron","expression":"0 9 * * 1-5","timezone":"Europe/London","start":…,"end":…,
 * "dstGap":"shift","dstOverlap":"once"}}, {@code {"type":"dates","dates":[…],"dstGap":…,"dstOverlap":…}}.
 * {@link Schedules#parse} validates it; a parsed schedule's {@link Schedule#spec()} has its defaults filled in.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScheduleSpec(
        String type,
        String at,
        String every,
        String start,
        String end,
        String expression,
        String timezone,
        String dstGap,
        String dstOverlap,
        List<DateSpec> dates) {

    @JsonCreator
    public ScheduleSpec {
        dates = dates == null ? null : Collections.unmodifiableList(new ArrayList<>(dates));
    }

    /** {@code {"type":"now"}}. */
    public static ScheduleSpec now() {
        return new ScheduleSpec("now", null, null, null, null, null, null, null, null, null);
    }

    /** {@code {"type":"once","at":…}}. */
    public static ScheduleSpec once(String at) {
        return new ScheduleSpec("once", at, null, null, null, null, null, null, null, null);
    }

    /** {@code {"type":"interval","every":…,"start":…,"end":…}}; {@code start} and {@code end} may be null. */
    public static ScheduleSpec interval(String every, String start, String end) {
        return new ScheduleSpec("interval", null, every, start, end, null, null, null, null, null);
    }

    public static ScheduleSpec cron(String expression, String timezone, String start, String end, DstPolicy policy) {
        return new ScheduleSpec(
                "cron",
                null,
                null,
                start,
                end,
                expression,
                timezone,
                policy == null ? null : policy.gap().wire(),
                policy == null ? null : policy.overlap().wire(),
                null);
    }

    public static ScheduleSpec dates(List<DateSpec> dates, DstPolicy policy) {
        return new ScheduleSpec(
                "dates",
                null,
                null,
                null,
                null,
                null,
                null,
                policy == null ? null : policy.gap().wire(),
                policy == null ? null : policy.overlap().wire(),
                dates);
    }
}
