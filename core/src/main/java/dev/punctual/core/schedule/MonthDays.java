package dev.punctual.core.schedule;

import java.time.DayOfWeek;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A day-of-month field that uses {@code L} or {@code W}, evaluated here rather than by cron-utils, which gets these
 * wrong near month ends: it throws on {@code 31W} in a month without a 31st (a 500 for whoever sent it), fires
 * {@code 30W} on a Sunday where the nearest weekday is the Friday before, and ignores {@code L} and {@code W} in a
 * list ({@code 1W,15W} fired on a Sunday the 1st; {@code L,15} skipped the 31st).
 *
 * <p>The field is a comma-separated list of: a day, a range {@code a-b}, a step {@code a-b/n}, {@code a/n} or
 * {@code *}{@code /n}; {@code L} (the last day), {@code L-n} (n days before it); {@code nW} (the weekday, Monday to
 * Friday, nearest the n-th, never in another month: the 1st on a Saturday moves to Monday the 3rd, the last day on
 * a Sunday to the Friday before; no day in a month without an n-th); {@code LW} (the last weekday).
 */
final class MonthDays {
    private static final Pattern STEP = Pattern.compile("(\\*|\\d+)(?:-(\\d+))?(?:/(\\d+))?");
    private static final Pattern NEAREST = Pattern.compile("(\\d+)W");
    private static final Pattern FROM_LAST = Pattern.compile("L(?:-(\\d+))?");

    /** One item of the list: the days of a month it names (bit i set for day i). */
    private interface Item {
        void addTo(BitSet days, YearMonth month);
    }

    private final List<Item> items;

    private MonthDays(List<Item> items) {
        this.items = items;
    }

    /** Whether cron-utils should be kept off this field: it names {@code L} or {@code W}. */
    static boolean needed(String field) {
        String f = field.toUpperCase(Locale.ROOT);
        return f.contains("L") || f.contains("W");
    }

    /**
     * Parses the field.
     *
     * @throws IllegalArgumentException naming the item that is not in the dialect
     */
    static MonthDays parse(String field) {
        List<Item> items = new ArrayList<>();
        for (String raw : field.toUpperCase(Locale.ROOT).split(",", -1)) {
            items.add(item(raw));
        }
        return new MonthDays(items);
    }

    private static Item item(String text) {
        if (text.equals("LW")) {
            return (days, month) -> days.set(weekdayNear(month.lengthOfMonth(), month));
        }
        Matcher m = NEAREST.matcher(text);
        if (m.matches()) {
            int day = day(m.group(1), text);
            return (days, month) -> {
                if (day <= month.lengthOfMonth()) {
                    days.set(weekdayNear(day, month));
                }
            };
        }
        m = FROM_LAST.matcher(text);
        if (m.matches()) {
            int before = m.group(1) == null ? 0 : Integer.parseInt(m.group(1));
            if (before > 30) {
                throw new IllegalArgumentException("day of month '" + text + "': L-n takes n from 1 to 30");
            }
            return (days, month) -> {
                int day = month.lengthOfMonth() - before;
                if (day >= 1) {
                    days.set(day);
                }
            };
        }
        m = STEP.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("day of month '" + text + "' is not a day, a range, a step, L, L-n, "
                    + "nW or LW (W takes a single day: 15W)");
        }
        boolean all = m.group(1).equals("*");
        if (all && m.group(2) != null) {
            throw new IllegalArgumentException("day of month '" + text + "': * takes no range");
        }
        int from = all ? 1 : day(m.group(1), text);
        // "a/n" runs to the month's end, as "*/n" does; "a" alone is just that day.
        int to = m.group(2) != null ? day(m.group(2), text) : all || m.group(3) != null ? 31 : from;
        int step = m.group(3) == null ? 1 : Integer.parseInt(m.group(3));
        if (to < from) {
            throw new IllegalArgumentException("day of month '" + text + "': the range ends before it starts");
        }
        if (step < 1 || step > 31) {
            throw new IllegalArgumentException("day of month '" + text + "': the step must be from 1 to 31");
        }
        return (days, month) -> {
            for (int d = from; d <= Math.min(to, month.lengthOfMonth()); d += step) {
                days.set(d);
            }
        };
    }

    private static int day(String digits, String item) {
        int d = digits.length() > 2 ? 0 : Integer.parseInt(digits);
        if (d < 1 || d > 31) {
            throw new IllegalArgumentException("day of month '" + item + "': days are 1 to 31");
        }
        return d;
    }

    /** The weekday nearest {@code day} (which the month has) without leaving the month. */
    static int weekdayNear(int day, YearMonth month) {
        DayOfWeek dow = month.atDay(day).getDayOfWeek();
        if (dow == DayOfWeek.SATURDAY) {
            return day == 1 ? 3 : day - 1;
        }
        if (dow == DayOfWeek.SUNDAY) {
            return day == month.lengthOfMonth() ? day - 2 : day + 1;
        }
        return day;
    }

    /** The days of {@code month} the field names: bit i for day i. */
    BitSet in(YearMonth month) {
        BitSet days = new BitSet(32);
        for (Item i : items) {
            i.addTo(days, month);
        }
        return days;
    }
}
