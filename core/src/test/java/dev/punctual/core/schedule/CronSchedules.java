package dev.punctual.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Test helpers: cron schedules built through the public parse path, occurrences walked as the dispatcher does. */
final class CronSchedules {
    static final Instant CREATED = Instant.parse("2029-12-01T00:00:00Z");
    static final Schedules SCHEDULES = new Schedules(Duration.ofSeconds(5));

    private CronSchedules() {}

    static CronSchedule cron(String expression, String zone, DstPolicy policy) {
        return (CronSchedule)
                SCHEDULES.parse(ScheduleSpec.cron(expression, zone, null, null, policy), CREATED, "schedule");
    }

    static DstPolicy policy(DstPolicy.Gap gap, DstPolicy.Overlap overlap) {
        return new DstPolicy(gap, overlap);
    }

    /** Every occurrence in [from, to], walked with first() then next(), asserting they strictly increase. */
    static List<Occurrence> walk(Schedule s, Instant from, Instant to, int cap) {
        List<Occurrence> out = new ArrayList<>();
        Optional<Occurrence> o = s.firstOccurrence(from);
        while (o.isPresent() && !o.get().at().isAfter(to) && out.size() < cap) {
            Occurrence occ = o.get();
            if (!out.isEmpty() && !occ.at().isAfter(out.getLast().at())) {
                throw new AssertionError("not strictly increasing: " + out.getLast() + " then " + occ);
            }
            if (!s.next(occ.at()).equals(s.nextOccurrence(occ.at()).map(Occurrence::at))) {
                throw new AssertionError("next() and nextOccurrence() disagree after " + occ);
            }
            out.add(occ);
            o = s.nextOccurrence(occ.at());
        }
        return out;
    }

    static List<ZoneOffsetTransition> transitions(ZoneId zone, Instant from, Instant to) {
        List<ZoneOffsetTransition> out = new ArrayList<>();
        ZoneOffsetTransition t = zone.getRules().nextTransition(from);
        while (t != null && t.getInstant().isBefore(to)) {
            out.add(t);
            t = zone.getRules().nextTransition(t.getInstant());
        }
        return out;
    }
}
