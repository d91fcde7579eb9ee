package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.error.ValidationException;
import dev.punctual.core.schedule.DstPolicy.Gap;
import dev.punctual.core.schedule.DstPolicy.Overlap;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Date;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TimeZone;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Punctual's cron evaluation against an independent implementation: Quartz's {@link org.quartz.CronExpression}
 * (which shares no code with cron-utils) over thousands of generated expressions ({@link CronPairs}) in seven
 * zones, each from a start chosen near a month end, a leap day, a DST change of its zone, or anywhere.
 *
 * <p>Quartz gives the wall-clock times an expression matches (evaluated in UTC, where no time is skipped or
 * repeated); the documented DST policies, applied here on their own terms to each of those times (a time in a
 * gap runs at the gap's end under {@code shift}, not at all under {@code skip}; a repeated time runs at its first
 * instant under {@code once}, at both under {@code twice}; instants that coincide are one run), say which instants
 * Punctual must fire at. Every fire time must be that, in order: a difference is either a DST policy (and then this
 * oracle, which applies the policy, agrees) or a defect. Seeds are fixed, so a failure reproduces; its message gives
 * the expression, zone, policy and start.
 */
class CronReferenceTest {
    private static final int EXPRESSIONS = 3_000;
    private static final int FIRES = 20;
    private static final List<ZoneId> ZONES =
            CronPairs.ZONES.stream().map(ZoneId::of).toList();
    /** Punctual looks 100 years ahead for a next occurrence; compare well inside that. */
    private static final Duration HORIZON = Duration.ofDays(365L * 90);

    private static final Schedules SCHEDULES = new Schedules(Duration.ofSeconds(5));

    @Test
    void agreesWithQuartzAndTheDstPoliciesOverThousandsOfExpressions() {
        CronPairs pairs = new CronPairs(20261128L);
        Random random = new Random(33L);
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        int fireTimes = 0;
        int nearestWeekday = 0;
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < EXPRESSIONS; i++) {
            CronPairs.Pair pair = pairs.next();
            ZoneId zone = ZONES.get(random.nextInt(ZONES.size()));
            DstPolicy policy = new DstPolicy(Gap.values()[random.nextInt(2)], Overlap.values()[random.nextInt(2)]);
            Instant start = start(random, zone);
            String ctx = "'" + pair.punctual() + "' in " + zone + " " + policy + " after " + start + " (Quartz: "
                    + pair.quartz() + ")";
            try {
                List<Instant> fired = new ArrayList<>();
                Outcome o = check(pair, zone, policy, start, fired);
                outcomes.merge(o, 1, Integer::sum);
                fireTimes += fired.size();
                if (o == Outcome.COMPARED && pair.punctual().contains("W")) {
                    nearestWeekday++;
                }
            } catch (AssertionError | RuntimeException | ParseException e) {
                if (System.getProperty("cron.dump") != null) {
                    System.out.println("DIFF " + ctx + ": " + e);
                }
                differences.add(ctx + ": " + e.getMessage());
            }
        }
        assertThat(differences)
                .as(
                        "%d of %d expressions differ; the first: %s",
                        differences.size(),
                        EXPRESSIONS,
                        differences.stream().limit(20).toList())
                .isEmpty();
        // What the run covered, so a generator that drifted into refusals would be noticed.
        int compared = outcomes.getOrDefault(Outcome.COMPARED, 0);
        assertThat(compared).isGreaterThan(EXPRESSIONS * 8 / 10);
        assertThat(fireTimes).isGreaterThan(compared * (FIRES - 2));
        assertThat(nearestWeekday).isGreaterThan(EXPRESSIONS / 10);
        assertThat(outcomes.getOrDefault(Outcome.TOO_FREQUENT, 0)).isPositive();
        System.out.printf(
                "CronReferenceTest: %d expressions, %s, %d of those compared with W, %d fire times%n",
                EXPRESSIONS, outcomes, nearestWeekday, fireTimes);
    }

    private enum Outcome {
        COMPARED,
        TOO_FREQUENT,
        NEVER_MATCHES
    }

    /** Compares one expression's first fire times after {@code start}, adding Punctual's to {@code fired}. */
    private static Outcome check(CronPairs.Pair pair, ZoneId zone, DstPolicy policy, Instant start, List<Instant> fired)
            throws ParseException {
        Reference reference = new Reference(pair);
        Schedule schedule;
        try {
            schedule = SCHEDULES.parse(
                    ScheduleSpec.cron(pair.punctual(), zone.getId(), null, null, policy), start, "schedule");
        } catch (ValidationException e) {
            // Refused only for what the dialect documents: seconds closer than 5 s, or no match at all.
            String why = e.getMessage();
            if (why.contains("s apart")) {
                assertThat(pair.secondsGap()).as(why).isLessThan(5);
                return Outcome.TOO_FREQUENT;
            }
            assertThat(why).contains("never matches");
            assertThat(reference.after(LocalDateTime.of(2000, 1, 1, 0, 0)))
                    .as("refused, and Quartz finds no match either")
                    .isNull();
            return Outcome.NEVER_MATCHES;
        }
        assertThat(pair.secondsGap()).as("accepted").isGreaterThanOrEqualTo(5);
        List<Instant> expected = expected(reference, zone, policy, start);
        Instant t = start;
        while (fired.size() < expected.size() || fired.size() < FIRES) {
            Optional<Instant> next = schedule.next(t);
            if (next.isEmpty() || next.get().isAfter(start.plus(HORIZON))) {
                break;
            }
            fired.add(next.get());
            t = next.get();
        }
        if (!fired.equals(expected)) {
            int i = 0;
            while (i < fired.size() && i < expected.size() && fired.get(i).equals(expected.get(i))) {
                i++;
            }
            throw new AssertionError("fire time #" + (i + 1) + ": Punctual " + local(fired, i, zone) + ", reference "
                    + local(expected, i, zone));
        }
        return Outcome.COMPARED;
    }

    /** The i-th instant as the zone's wall clock reads it, with its day of the week; "none" past the end. */
    private static String local(List<Instant> instants, int i, ZoneId zone) {
        if (i >= instants.size()) {
            return "none";
        }
        var z = instants.get(i).atZone(zone);
        return z.toLocalDateTime() + z.getOffset().toString() + " " + z.getDayOfWeek();
    }

    /** Near a month end, a leap day, a DST change of the zone, or any time in 2026–2045; whole seconds. */
    private static Instant start(Random random, ZoneId zone) {
        int year = 2026 + random.nextInt(20);
        LocalTime time = LocalTime.ofSecondOfDay(random.nextInt(86_400));
        return switch (random.nextInt(4)) {
            case 0 -> {
                LocalDate monthEnd = LocalDate.of(year, 1 + random.nextInt(12), 1)
                        .plusMonths(1)
                        .minusDays(1);
                yield monthEnd.minusDays(random.nextInt(4))
                        .atTime(time)
                        .atZone(zone)
                        .toInstant();
            }
            case 1 -> {
                int leap = List.of(2028, 2032, 2036, 2040, 2044).get(random.nextInt(5));
                yield LocalDate.of(leap, 2, 28 + random.nextInt(2))
                        .atTime(time)
                        .atZone(zone)
                        .toInstant();
            }
            case 2 -> {
                ZoneOffsetTransition t = zone.getRules()
                        .nextTransition(LocalDate.of(year, 1 + random.nextInt(12), 1)
                                .atStartOfDay(zone)
                                .toInstant());
                Instant near =
                        t == null ? LocalDate.of(year, 3, 1).atStartOfDay(zone).toInstant() : t.getInstant();
                yield near.plusSeconds(random.nextInt(4 * 3600) - 3 * 3600);
            }
            default ->
                LocalDate.of(year, 1, 1)
                        .plusDays(random.nextInt(366))
                        .atTime(time)
                        .atZone(zone)
                        .toInstant();
        };
    }

    /**
     * The first {@link #FIRES} instants after {@code start} (within {@link #HORIZON}): Quartz's matching wall-clock
     * times, each resolved by the policy, merged and ordered.
     */
    private static List<Instant> expected(Reference reference, ZoneId zone, DstPolicy policy, Instant start)
            throws ParseException {
        ZoneRules rules = zone.getRules();
        TreeSet<Instant> found = new TreeSet<>();
        Instant end = start.plus(HORIZON);
        // A wall-clock time of the start's day, hours before it, so that no time whose instant follows the start
        // (a repeated hour's second pass) is missed.
        LocalDateTime local = LocalDateTime.ofInstant(start, zone).minusHours(3);
        while (true) {
            local = reference.after(local);
            if (local == null) {
                break;
            }
            // No later wall-clock time can come earlier than this one read at the largest offset there is.
            Instant earliestFromHere = local.toInstant(ZoneOffset.MAX);
            if (earliestFromHere.isAfter(end) || found.size() >= FIRES && earliestFromHere.isAfter(nth(found, FIRES))) {
                break;
            }
            for (Instant i : resolve(local, rules, policy)) {
                if (i.isAfter(start) && !i.isAfter(end)) {
                    found.add(i);
                }
            }
        }
        return found.stream().limit(FIRES).toList();
    }

    /** The documented policies, for one wall-clock time: none, one, or (a repeated time, twice) two instants. */
    private static List<Instant> resolve(LocalDateTime local, ZoneRules rules, DstPolicy policy) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.size() == 1) {
            return List.of(local.toInstant(offsets.get(0)));
        }
        ZoneOffsetTransition t = rules.getTransition(local);
        if (offsets.isEmpty()) {
            return policy.gap() == Gap.SHIFT ? List.of(t.getInstant()) : List.of();
        }
        Instant first = local.toInstant(t.getOffsetBefore());
        return policy.overlap() == Overlap.ONCE ? List.of(first) : List.of(first, local.toInstant(t.getOffsetAfter()));
    }

    private static Instant nth(TreeSet<Instant> set, int n) {
        return set.stream().skip(n - 1L).findFirst().orElseThrow();
    }

    /**
     * The wall-clock times a pair means, read off Quartz (evaluated in UTC: no time skipped or repeated), with the
     * nearest weekday's day found here.
     */
    private static final class Reference {
        private final List<org.quartz.CronExpression> quartz = new ArrayList<>();
        private final CronPairs.Pair pair;
        private final org.quartz.CronExpression months;

        Reference(CronPairs.Pair pair) throws ParseException {
            this.pair = pair;
            for (String q : pair.quartz()) {
                quartz.add(utc(q));
            }
            months = utc("0 0 0 1 " + pair.month() + " ?");
        }

        /** The first wall-clock time after {@code local} that the pair matches; null if none. */
        LocalDateTime after(LocalDateTime local) throws ParseException {
            Date after = Date.from(local.toInstant(ZoneOffset.UTC));
            Date best = null;
            for (org.quartz.CronExpression e : quartz) {
                Date next = e.getTimeAfter(after);
                if (next != null && (best == null || next.before(best))) {
                    best = next;
                }
            }
            LocalDateTime first = best == null ? null : LocalDateTime.ofInstant(best.toInstant(), ZoneOffset.UTC);
            LocalDateTime w = pair.nearestWeekday() == null ? null : nearestWeekdayAfter(local);
            return first == null || w != null && w.isBefore(first) ? w : first;
        }

        /**
         * The nearest weekday's next match: for each month the month field matches, the day the documented rule
         * gives, and Quartz's first time on it (an expression of that exact day, month and year).
         */
        private LocalDateTime nearestWeekdayAfter(LocalDateTime local) throws ParseException {
            YearMonth month = YearMonth.from(local);
            for (int i = 0; i < 12 * 100; i++, month = month.plusMonths(1)) {
                Date first = Date.from(month.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC));
                Integer day = nearestWeekday(pair.nearestWeekday(), month);
                if (day == null
                        || !months.isSatisfiedBy(first)
                        || month.atDay(day).isBefore(local.toLocalDate())) {
                    continue;
                }
                org.quartz.CronExpression onDay =
                        utc(pair.time() + " " + day + " " + month.getMonthValue() + " ? " + month.getYear());
                Date next = onDay.getTimeAfter(Date.from(local.toInstant(ZoneOffset.UTC)));
                if (next != null) {
                    return LocalDateTime.ofInstant(next.toInstant(), ZoneOffset.UTC);
                }
            }
            return null;
        }

        /**
         * {@code nW}: the n-th if a weekday, else the Friday before or the Monday after, whichever is in the month
         * (no day in a month without an n-th); {@code LW}: the last weekday.
         */
        private static Integer nearestWeekday(String spec, YearMonth month) {
            int last = month.lengthOfMonth();
            int n = spec.equals("LW") ? last : Integer.parseInt(spec.substring(0, spec.length() - 1));
            if (n > last) {
                return null;
            }
            return switch (month.atDay(n).getDayOfWeek()) {
                case SATURDAY -> n == 1 ? 3 : n - 1;
                case SUNDAY -> n == last ? n - 2 : n + 1;
                default -> n;
            };
        }

        private static org.quartz.CronExpression utc(String expression) throws ParseException {
            org.quartz.CronExpression e = new org.quartz.CronExpression(expression);
            e.setTimeZone(TimeZone.getTimeZone("UTC"));
            return e;
        }
    }
}
