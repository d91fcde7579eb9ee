package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.time.ExecutionTime;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.schedule.DstPolicy.Gap;
import dev.punctual.core.schedule.DstPolicy.Overlap;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Property-style: for random expressions of the dialect in random zones, the occurrences over two years equal
 * cron-utils' own {@code ExecutionTime.nextExecution} in that zone wherever the wall clock is unambiguous; at every
 * DST transition in the range they are what the policy says (an oracle that resolves each matching local time on its
 * own and merges the instants); and they strictly increase everywhere. Iterations are capped per expression: eight
 * windows spread over the two years, a bounded number of occurrences each.
 */
class CronPropertyTest {
    private static final int EXPRESSIONS = 300;
    private static final int PER_WINDOW = 30;
    private static final int WINDOWS = 8;
    private static final int PER_TRANSITION = 400;
    private static final List<String> ZONES = List.of(
            "America/New_York",
            "Europe/London",
            "Australia/Lord_Howe",
            "Asia/Kolkata",
            "UTC",
            "Europe/Berlin",
            "Pacific/Chatham");
    private static final ZonedDateTime START = ZonedDateTime.of(2030, 1, 1, 0, 0, 0, 0, ZoneId.of("UTC"));

    @Test
    void randomExpressionsAgreeWithCronUtilsAndTheDstPoliciesHold() {
        CronGrammar grammar = new CronGrammar(20300101L);
        Random random = new Random(7L);
        int checked = 0;
        int comparedOccurrences = 0;
        int transitionsChecked = 0;
        while (checked < EXPRESSIONS) {
            String expression = grammar.next();
            String zoneId = ZONES.get(random.nextInt(ZONES.size()));
            DstPolicy policy = new DstPolicy(Gap.values()[random.nextInt(2)], Overlap.values()[random.nextInt(2)]);
            CronSchedule s;
            try {
                s = CronSchedules.cron(expression, zoneId, policy);
            } catch (ValidationException e) {
                // e.g. "0 0 31 2 *" never matches; rejected up front, as it should be.
                assertThat(e.getMessage()).contains("never matches");
                continue;
            }
            checked++;
            String ctx = "'" + expression + "' in " + zoneId + " " + policy;
            comparedOccurrences += compareWithCronUtils(s, expression, ctx);
            transitionsChecked += checkTransitions(s, ctx);
        }
        assertThat(comparedOccurrences).as("enough occurrences compared").isGreaterThan(EXPRESSIONS * 20);
        assertThat(transitionsChecked).as("enough transitions checked").isGreaterThan(EXPRESSIONS);
    }

    /** Mine and cron-utils' over each window, both without the instants whose wall-clock time is a DST edge. */
    private static int compareWithCronUtils(CronSchedule s, String expression, String ctx) {
        ZoneId zone = s.zone();
        String[] f = expression.split(" ");
        ExecutionTime reference = ExecutionTime.forCron(
                (f.length == 6 ? CronDialect.SIX_FIELDS : CronDialect.FIVE_FIELDS).parse(expression));
        ZonedDateTime start = START.withZoneSameLocal(zone);
        Duration window = Duration.between(start, start.plusYears(2)).dividedBy(WINDOWS);
        int compared = 0;
        for (int w = 0; w < WINDOWS; w++) {
            Instant from = start.toInstant().plus(window.multipliedBy(w));
            Instant to = from.plus(window);
            List<Occurrence> mine = CronSchedules.walk(s, from, to, PER_WINDOW);
            Instant until = mine.size() == PER_WINDOW ? mine.getLast().at() : to;
            List<Instant> theirs = new ArrayList<>();
            Optional<ZonedDateTime> z =
                    reference.nextExecution(from.minusSeconds(1).atZone(zone));
            while (z.isPresent() && !z.get().toInstant().isAfter(until) && theirs.size() < PER_WINDOW * 3) {
                theirs.add(z.get().toInstant());
                z = reference.nextExecution(z.get());
            }
            List<Instant> mineOrdinary = mine.stream()
                    .map(Occurrence::at)
                    .filter(t -> !edge(zone, t))
                    .toList();
            List<Instant> theirsOrdinary =
                    theirs.stream().filter(t -> !edge(zone, t)).distinct().toList();
            assertThat(mineOrdinary).as("%s from %s", ctx, from).containsExactlyElementsOf(theirsOrdinary);
            mine.stream()
                    .filter(o -> o.dst() == null)
                    .forEach(o -> assertThat(edge(zone, o.at()))
                            .as("%s: %s unflagged but at a DST edge", ctx, o)
                            .isFalse());
            compared += mineOrdinary.size();
        }
        return compared;
    }

    /** A wall-clock time that happens twice, or the instant that ends a gap: where the policies decide. */
    private static boolean edge(ZoneId zone, Instant t) {
        ZoneRules rules = zone.getRules();
        if (rules.getValidOffsets(t.atZone(zone).toLocalDateTime()).size() > 1) {
            return true;
        }
        ZoneOffsetTransition previous = rules.previousTransition(t.plusNanos(1));
        return previous != null && previous.isGap() && previous.getInstant().equals(t);
    }

    /**
     * Around each transition: every matching wall-clock time resolved on its own by the policy ({@link
     * DstPolicy#resolve}), merged by instant (a gap's shift and a genuine match at the same instant are one run),
     * must be exactly what next() walks.
     */
    private static int checkTransitions(CronSchedule s, String ctx) {
        ZoneId zone = s.zone();
        Instant from = START.withZoneSameLocal(zone).toInstant();
        int checked = 0;
        for (ZoneOffsetTransition t : CronSchedules.transitions(zone, from, from.plus(Duration.ofDays(731)))) {
            Instant a = t.getInstant().minus(Duration.ofMinutes(70));
            Instant b = t.getInstant().plus(Duration.ofMinutes(70));
            List<Occurrence> mine = CronSchedules.walk(s, a, b, PER_TRANSITION);
            if (mine.size() == PER_TRANSITION) {
                b = mine.getLast().at();
            }
            LocalDateTime localFrom =
                    LocalDateTime.ofInstant(a, t.getOffsetBefore()).minusHours(2);
            LocalDateTime localTo =
                    LocalDateTime.ofInstant(b, t.getOffsetAfter()).plusHours(2);
            TreeMap<Instant, DstEdge> expected = new TreeMap<>();
            Optional<LocalDateTime> m = s.cron().nextAfter(localFrom);
            while (m.isPresent() && m.get().isBefore(localTo)) {
                for (Occurrence o : s.policy().resolve(m.get(), zone)) {
                    if (!o.at().isBefore(a) && !o.at().isAfter(b)) {
                        boolean shifted = o.dst() == DstEdge.GAP_SHIFTED
                                || expected.containsKey(o.at()) && expected.get(o.at()) == DstEdge.GAP_SHIFTED;
                        expected.put(o.at(), shifted ? DstEdge.GAP_SHIFTED : o.dst());
                    }
                }
                m = s.cron().nextAfter(m.get());
            }
            assertThat(mine)
                    .as("%s around %s", ctx, t)
                    .extracting(Occurrence::at)
                    .containsExactlyElementsOf(expected.keySet());
            for (Occurrence o : mine) {
                assertThat(o.dst()).as("%s: flag of %s", ctx, o).isEqualTo(expected.get(o.at()));
            }
            checked++;
        }
        return checked;
    }
}
