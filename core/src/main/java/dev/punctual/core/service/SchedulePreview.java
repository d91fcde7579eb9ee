package dev.punctual.core.service;

import dev.punctual.core.schedule.CronSchedule;
import dev.punctual.core.schedule.DatesSchedule;
import dev.punctual.core.schedule.Occurrence;
import dev.punctual.core.schedule.Schedule;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The next occurrences of a schedule, in order. {@code timezone} is the cron's zone, "UTC" for the kinds without
 * one, and absent for dates (each entry carries its own zone, shown in its occurrences' {@code local}).
 */
public record SchedulePreview(List<PreviewOccurrence> occurrences, String timezone) {
    public static final int DEFAULT_COUNT = 10;
    public static final int MAX_COUNT = 100;

    /** Up to {@code count} occurrences at or after {@code from}, walked exactly as the dispatcher will walk them. */
    public static SchedulePreview of(Schedule schedule, Instant from, int count) {
        List<PreviewOccurrence> out = new ArrayList<>();
        Optional<Occurrence> o = schedule.firstOccurrence(from);
        while (o.isPresent() && out.size() < count) {
            Occurrence occ = o.get();
            out.add(new PreviewOccurrence(
                    JobView.str(occ.at()),
                    DateTimeFormatter.ISO_ZONED_DATE_TIME.format(occ.at().atZone(occ.zone())),
                    occ.dst() == null ? null : occ.dst().wire()));
            o = schedule.nextOccurrence(occ.at());
        }
        return new SchedulePreview(out, timezone(schedule));
    }

    public static SchedulePreview empty(Schedule schedule) {
        return new SchedulePreview(List.of(), timezone(schedule));
    }

    private static String timezone(Schedule schedule) {
        return switch (schedule) {
            case CronSchedule c -> c.zone().getId();
            case DatesSchedule d -> null;
            default -> "UTC";
        };
    }
}
