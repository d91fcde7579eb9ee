package dev.punctual.core.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Random expressions of Punctual's cron dialect, each with what it means written for Quartz's {@code CronExpression}
 * ({@link Pair#quartz}), an implementation that shares nothing with cron-utils. The two dialects differ in three
 * places, all translated here rather than by either implementation: Quartz numbers days of the week 1 (Sunday) to 7
 * where Punctual numbers them 0 or 7 (Sunday) to 6, so the day-of-week field is written out as the list of days it
 * means; Quartz always has a seconds field; and Quartz cannot restrict both day fields, so an expression that does
 * (a day matches if either does, Unix's rule) becomes two Quartz expressions whose fire times are merged.
 *
 * <p>Generated: {@code *}, values, names, lists, ranges, steps ({@code *}{@code /n}, {@code a-b/n}, {@code a/n}),
 * {@code L}, {@code L-n}, {@code nW}, {@code LW}, {@code nL}, {@code n#k}, {@code ?}, 5 and 6 fields, either or
 * both day fields restricted. Not generated: {@code a/n} in the day of week (Quartz ends it at Saturday, cron-utils
 * at the second Sunday, 7: a dialect choice, not a defect) and ranges that wrap.
 */
public final class CronPairs {
    /** The zones the comparisons run in: DST north and south, half- and quarter-hour offsets, a 30-minute shift. */
    public static final List<String> ZONES = List.of(
            "UTC",
            "America/New_York",
            "Europe/Berlin",
            "Australia/Lord_Howe",
            "Asia/Kolkata",
            "America/Sao_Paulo",
            "Pacific/Chatham");

    private static final String[] DOW_NAMES = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    private static final String[] MONTH_NAMES = {
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
    };

    /**
     * An expression of Punctual's and the Quartz expressions whose merged fire times it means.
     *
     * @param nearestWeekday a day of the month {@code nW} or {@code LW}, null if none: Quartz's own evaluation of
     *     {@code W} misses fires (after a day moved forward it skips the rest of the month; on a day found
     *     after the search's start it keeps the start's time of day), so the day is left to the test, and the
     *     times on it to Quartz ({@code time}, {@code month}: the Quartz fields to match on that day)
     * @param seconds the seconds it matches (for the 5-second floor)
     */
    public record Pair(
            String punctual,
            List<String> quartz,
            String nearestWeekday,
            String time,
            String month,
            TreeSet<Integer> seconds) {
        /** The shortest distance between two matching seconds, counted around the minute. */
        int secondsGap() {
            int gap = 60;
            List<Integer> s = new ArrayList<>(seconds);
            for (int i = 0; i < s.size(); i++) {
                int next = i + 1 < s.size() ? s.get(i + 1) : s.get(0) + 60;
                gap = Math.min(gap, next - s.get(i));
            }
            return gap;
        }
    }

    private final Random random;

    public CronPairs(long seed) {
        this.random = new Random(seed);
    }

    public Pair next() {
        boolean sixFields = random.nextInt(3) == 0;
        Field second = sixFields ? seconds() : new Field("0", new TreeSet<>(List.of(0)));
        Field minute = numeric(0, 59);
        // Hours near DST transitions (0–3) are over-represented, so edges are exercised often.
        Field hour = random.nextInt(3) == 0 ? numeric(0, 3) : numeric(0, 23);
        String month = month();
        String dom;
        String dow;
        String quartzDow;
        switch (random.nextInt(6)) {
            case 0, 1 -> {
                dom = dayOfMonth();
                dow = pick("*", "?");
                quartzDow = null;
            }
            case 2, 3 -> {
                dom = pick("*", "?");
                String[] d = dayOfWeek();
                dow = d[0];
                quartzDow = d[1];
            }
            case 4 -> {
                dom = dayOfMonth();
                String[] d = dayOfWeek();
                dow = d[0];
                quartzDow = d[1];
            }
            default -> {
                dom = pick("*", "?");
                dow = pick("*", "?");
                quartzDow = null;
            }
        }
        String time = second.text + " " + minute.text + " " + hour.text;
        List<String> quartz = new ArrayList<>();
        boolean domRestricted = !dom.equals("*") && !dom.equals("?");
        boolean nearestWeekday = dom.endsWith("W");
        if (domRestricted && !nearestWeekday) {
            quartz.add(time + " " + dom + " " + month + " ?");
        }
        if (quartzDow != null) {
            quartz.add(time + " ? " + month + " " + quartzDow);
        }
        if (quartz.isEmpty() && !nearestWeekday) {
            quartz.add(time + " * " + month + " ?");
        }
        String punctual = (sixFields ? second.text + " " : "") + minute.text + " " + hour.text + " " + dom + " " + month
                + " " + dow;
        return new Pair(punctual, quartz, nearestWeekday ? dom : null, time, month, second.values);
    }

    /**
     * {@code expression} with one random change of the kind a typo or a confused user makes: a character replaced
     * or inserted, a number out of its range or absurdly long, a field dropped or doubled, a day-of-month or
     * day-of-week form put in another field. Most are not in the dialect; some still are.
     */
    public String mutate(String expression) {
        List<String> f = new ArrayList<>(List.of(expression.split(" ")));
        int i = random.nextInt(f.size());
        String field = f.get(i);
        switch (random.nextInt(7)) {
            case 0 -> {
                String chars = "*/-,?LW#0123456789xX@$%;.\u00e9\t";
                int at = random.nextInt(field.length());
                char c = chars.charAt(random.nextInt(chars.length()));
                f.set(i, field.substring(0, at) + c + field.substring(at + 1));
            }
            case 1 -> {
                String token = pick("W", "L", "#", "/", "-", ",", "?", "L-", "#6", "/0", "-0", "LW", "5W", "0#1");
                int at = random.nextInt(field.length() + 1);
                f.set(i, field.substring(0, at) + token + field.substring(at));
            }
            case 2 -> f.set(i, pick("60", "24", "32", "13", "8", "-1", "0", "99999999999999999999", "1-99", "5-1"));
            case 3 -> f.remove(i);
            case 4 -> f.add(i, field);
            case 5 -> f.set(i, pick("15W", "LW", "L-3", "5L", "1#2", "?", "L", "W", "SUN-SAT", "JAN-DEC", "MON#6"));
            default -> f.set(i, field.toLowerCase(java.util.Locale.ROOT) + pick("", "W", "L", "/7", ",*"));
        }
        return String.join(" ", f);
    }

    private record Field(String text, TreeSet<Integer> values) {}

    /** Mostly values at least 5 s apart around the minute; sometimes closer, which the dialect refuses. */
    private Field seconds() {
        Field f = switch (random.nextInt(6)) {
            case 0 -> numeric(0, 59);
            case 1 -> step("*", 0, 59, 5 + random.nextInt(26));
            case 2 -> {
                int a = random.nextInt(25);
                int b = a + 5 + random.nextInt(25);
                yield new Field(a + "," + b, new TreeSet<>(List.of(a, b)));
            }
            case 3 -> {
                int a = random.nextInt(10);
                int b = 40 + random.nextInt(20);
                yield step(a + "-" + b, a, b, 5 + random.nextInt(20));
            }
            case 4 -> step(Integer.toString(random.nextInt(30)), -1, 59, 5 + random.nextInt(25));
            default -> new Field("0", new TreeSet<>(List.of(0)));
        };
        return f;
    }

    /** A field of plain numbers in [min, max]: the same text in both dialects. */
    private Field numeric(int min, int max) {
        int span = max - min + 1;
        return switch (random.nextInt(7)) {
            case 0 -> step("*", min, max, 1);
            case 1 -> {
                int v = min + random.nextInt(span);
                yield new Field(Integer.toString(v), new TreeSet<>(List.of(v)));
            }
            case 2 -> step("*", min, max, 1 + random.nextInt(Math.max(1, span / 2)));
            case 3 -> {
                int a = min + random.nextInt(span);
                int b = a + random.nextInt(max - a + 1);
                yield step(a + "-" + b, a, b, 1);
            }
            case 4 -> list(min, max);
            case 5 -> {
                int a = min + random.nextInt(Math.max(1, span / 2));
                int b = a + random.nextInt(max - a + 1);
                yield step(a + "-" + b, a, b, 1 + random.nextInt(Math.max(1, span / 3)));
            }
            default -> {
                int a = min + random.nextInt(Math.max(1, span / 2));
                yield step(Integer.toString(a), -1, max, 1 + random.nextInt(Math.max(1, span / 2)));
            }
        };
    }

    /**
     * {@code base/n} ({@code n > 1}) or {@code base} alone: the values from {@code from} (or {@code base} itself when
     * {@code from} is -1, the {@code a/n} form) to {@code to}, every {@code n}.
     */
    private static Field step(String base, int from, int to, int n) {
        int start = from == -1 ? Integer.parseInt(base) : from;
        TreeSet<Integer> v = new TreeSet<>();
        for (int i = start; i <= to; i += n) {
            v.add(i);
        }
        String text = n == 1 && from != -1 ? base : base + "/" + n;
        return new Field(text, v);
    }

    private Field list(int min, int max) {
        TreeSet<Integer> v = new TreeSet<>();
        int n = 2 + random.nextInt(3);
        while (v.size() < n) {
            v.add(min + random.nextInt(max - min + 1));
        }
        return new Field(v.stream().map(String::valueOf).collect(Collectors.joining(",")), v);
    }

    /** Restricted, in the same text for both dialects. */
    private String dayOfMonth() {
        return switch (random.nextInt(10)) {
            case 0 -> "L";
            // The nearest weekday, over-represented: its month ends are where implementations disagree.
            case 1, 2 -> (1 + random.nextInt(31)) + "W";
            case 3 -> pick("28W", "29W", "30W", "31W", "1W");
            case 4 -> "LW";
            case 5 -> "L-" + (1 + random.nextInt(5));
            case 6 -> numeric(1, 31).text;
            case 7 -> pick("29", "30", "31", "29-31", "30,31");
            default -> list(1, 31).text;
        };
    }

    /** Restricted: {Punctual's text, Quartz's}. */
    private String[] dayOfWeek() {
        return switch (random.nextInt(9)) {
            case 0 -> {
                int d = random.nextInt(8);
                yield new String[] {Integer.toString(d), days(d)};
            }
            case 1 -> {
                int d = random.nextInt(8);
                int k = 1 + random.nextInt(5);
                yield new String[] {d + "#" + k, quartzDay(d) + "#" + k};
            }
            case 2 -> {
                int d = random.nextInt(8);
                yield new String[] {d + "L", quartzDay(d) + "L"};
            }
            case 3 -> {
                int a = random.nextInt(8);
                int b = a + random.nextInt(8 - a);
                yield new String[] {a + "-" + b, days(range(a, b, 1))};
            }
            case 4 -> {
                int a = random.nextInt(7);
                int b = a + random.nextInt(7 - a);
                yield new String[] {DOW_NAMES[a] + "-" + DOW_NAMES[b], days(range(a, b, 1))};
            }
            case 5 -> {
                int n = 1 + random.nextInt(4);
                yield new String[] {"*/" + n, days(range(0, 7, n))};
            }
            case 6 -> {
                int a = random.nextInt(4);
                int b = a + 2 + random.nextInt(8 - a - 2);
                int n = 2 + random.nextInt(2);
                yield new String[] {a + "-" + b + "/" + n, days(range(a, b, n))};
            }
            case 7 -> {
                TreeSet<Integer> v = new TreeSet<>();
                int n = 2 + random.nextInt(3);
                while (v.size() < n) {
                    v.add(random.nextInt(8));
                }
                String text = v.stream()
                        .map(d -> random.nextBoolean() && d < 7 ? DOW_NAMES[d] : d.toString())
                        .collect(Collectors.joining(","));
                yield new String[] {
                    text, days(v.stream().mapToInt(Integer::intValue).toArray())
                };
            }
            default -> {
                int d = random.nextInt(7);
                yield new String[] {DOW_NAMES[d], days(d)};
            }
        };
    }

    private static int[] range(int a, int b, int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = a; i <= b; i += n) {
            out.add(i);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Punctual's days (0–7, 0 and 7 Sunday) as a Quartz list of its days (1 Sunday – 7 Saturday). */
    private static String days(int... punctualDays) {
        TreeSet<Integer> q = new TreeSet<>();
        for (int d : punctualDays) {
            q.add(quartzDay(d));
        }
        return q.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static int quartzDay(int punctualDay) {
        return punctualDay % 7 + 1;
    }

    private String month() {
        return switch (random.nextInt(6)) {
            case 0, 1 -> "*";
            case 2 -> list(1, 12).text;
            case 3 -> MONTH_NAMES[random.nextInt(12)] + "-" + MONTH_NAMES[11];
            case 4 -> pick("2", "FEB", "2,4,6,9,11", "FEB-APR", "*/2");
            default -> numeric(1, 12).text;
        };
    }

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }
}
