package dev.punctual.core.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.field.CronFieldName;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.model.time.generator.FieldValueGeneratorFactory;
import com.cronutils.parser.CronParser;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * A parsed cron expression of {@link CronDialect}, matched against wall-clock time only. Time zones and DST are
 * applied on top by {@link CronTimeline}: cron-utils sees local times as if they were UTC, where every day has 24
 * hours, so its own DST handling never comes into play.
 */
public final class CronExpression {
    private static final String CRON_UTILS_PREFIX = "Failed to parse cron expression. ";

    private final String text;
    private final boolean seconds;
    private final List<Variant> days;
    private final List<Integer> secondValues;

    private CronExpression(String text, boolean seconds, List<Variant> days, List<Integer> secondValues) {
        this.text = text;
        this.seconds = seconds;
        this.days = days;
        this.secondValues = secondValues;
    }

    /**
     * Parses {@code text} in the dialect above.
     *
     * @throws IllegalArgumentException with a message fit for a user when {@code text} is not in the dialect
     */
    public static CronExpression parse(String text) {
        String[] f = text.trim().split("\\s+");
        if (f.length != 5 && f.length != 6) {
            throw new IllegalArgumentException("must have 5 fields (minute hour day-of-month month day-of-week), "
                    + "or 6 with a leading seconds field; got " + f.length);
        }
        CronParser parser = f.length == 6 ? CronDialect.SIX_FIELDS : CronDialect.FIVE_FIELDS;
        String normalized = String.join(" ", f);
        int dom = f.length - 3;
        int dow = f.length - 1;
        boolean domRestricted = restricted(f[dom]);
        boolean dowRestricted = restricted(f[dow]);
        // Days of the week by number: cron-utils reads SUN as 7, so SUN-WED would be the range 7-3, refused.
        String[] c = with(f, dow, CronDialect.dayNumbers(f[dow]));
        MonthDays monthDays = domRestricted && MonthDays.needed(f[dom]) ? MonthDays.parse(f[dom]) : null;
        if (monthDays != null) {
            // cron-utils checks the rest; the day of the month is MonthDays' alone.
            c[dom] = "*";
        }
        Cron cron = parseOne(parser, String.join(" ", c));
        // Unix cron: when both day fields are restricted, a day matches if EITHER does. cron-utils would require
        // both, so such an expression is matched as two, one per day field, and the earlier match wins. With one
        // or no day field restricted, the other becomes "?", the form cron-utils evaluates unambiguously.
        List<Variant> days = new ArrayList<>();
        if (dowRestricted) {
            days.add(variant(parser, with(c, dom, "?")));
        }
        if (domRestricted || !dowRestricted) {
            String[] byMonthDay = with(with(c, dom, domRestricted ? c[dom] : "*"), dow, "?");
            Variant v = variant(parser, byMonthDay);
            days.add(monthDays == null ? v : new OnMonthDays(v, monthDays));
        }
        List<Integer> secondValues = f.length == 6
                ? FieldValueGeneratorFactory.forCronField(cron.retrieve(CronFieldName.SECOND))
                        .generateCandidates(0, 59)
                : List.of(0);
        CronExpression e = new CronExpression(normalized, f.length == 6, days, secondValues);
        if (e.nextAfter(LocalDateTime.of(2000, 1, 1, 0, 0)).isEmpty()) {
            throw new IllegalArgumentException("never matches a date");
        }
        return e;
    }

    /** The wall-clock times one form of the expression matches: the next strictly after a time. */
    private interface Variant {
        Optional<LocalDateTime> nextAfter(LocalDateTime t);
    }

    private static Variant variant(CronParser parser, String[] fields) {
        ExecutionTime e = ExecutionTime.forCron(parseOne(parser, String.join(" ", fields)));
        return t -> e.nextExecution(t.atZone(ZoneOffset.UTC)).map(z -> z.toLocalDateTime());
    }

    /**
     * A day-of-month field of {@link MonthDays} over the rest of the expression, which cron-utils matches on any
     * day: the next time on any day, moved on to the next of the field's days until it is on one. At most two
     * steps a month (one to the day, one for the time on it), and never past {@link #SEARCH_YEARS}.
     */
    private record OnMonthDays(Variant anyDay, MonthDays monthDays) implements Variant {
        @Override
        public Optional<LocalDateTime> nextAfter(LocalDateTime t) {
            LocalDateTime limit = t.plusYears(SEARCH_YEARS);
            LocalDateTime from = t;
            while (true) {
                Optional<LocalDateTime> next = anyDay.nextAfter(from);
                if (next.isEmpty() || next.get().isAfter(limit)) {
                    return Optional.empty();
                }
                LocalDateTime at = next.get();
                YearMonth month = YearMonth.from(at);
                BitSet days = monthDays.in(month);
                if (days.get(at.getDayOfMonth())) {
                    return next;
                }
                int day = days.nextSetBit(at.getDayOfMonth() + 1);
                // Just before the next day of the field (this month's, else the next month's first moment).
                LocalDateTime to = day > 0
                        ? month.atDay(day).atStartOfDay()
                        : month.plusMonths(1).atDay(1).atStartOfDay();
                from = to.minusSeconds(1);
            }
        }
    }

    /** How far {@link OnMonthDays} looks: past the 100 years a schedule is searched ({@code CronTimeline}). */
    private static final int SEARCH_YEARS = 101;

    private static Cron parseOne(CronParser parser, String text) {
        try {
            return parser.parse(text).validate();
        } catch (IllegalArgumentException e) {
            String m = e.getMessage() == null ? "invalid" : e.getMessage();
            throw new IllegalArgumentException(
                    m.startsWith(CRON_UTILS_PREFIX) ? m.substring(CRON_UTILS_PREFIX.length()) : m, e);
        } catch (RuntimeException e) {
            // cron-utils' parser throws others on some malformed fields (an index out of bounds for "1#" or "?#"):
            // still the client's input, never a 500, but its message would mean nothing to them.
            throw new IllegalArgumentException("a field is malformed", e);
        }
    }

    private static boolean restricted(String dayField) {
        return !dayField.equals("*") && !dayField.equals("?");
    }

    private static String[] with(String[] fields, int index, String value) {
        String[] copy = fields.clone();
        copy[index] = value;
        return copy;
    }

    /** The first wall-clock time strictly after {@code t} that matches, in whole seconds; empty if none ever does. */
    public Optional<LocalDateTime> nextAfter(LocalDateTime t) {
        LocalDateTime best = null;
        for (Variant v : days) {
            LocalDateTime n = v.nextAfter(t).orElse(null);
            if (n != null && (best == null || n.isBefore(best))) {
                best = n;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The shortest distance in seconds between two matching seconds of a minute, counted around the minute (a
     * 6-field expression); 60 for a 5-field one. Bounds how often the expression can fire.
     */
    public int shortestSecondsGap() {
        int gap = 60;
        for (int i = 0; i < secondValues.size(); i++) {
            int next = i + 1 < secondValues.size() ? secondValues.get(i + 1) : secondValues.get(0) + 60;
            gap = Math.min(gap, next - secondValues.get(i));
        }
        return gap;
    }

    public boolean hasSeconds() {
        return seconds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronExpression c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The expression with single spaces between fields. */
    @Override
    public String toString() {
        return text;
    }
}
