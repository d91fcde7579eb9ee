package dev.punctual.core.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Random cron expressions of the documented dialect, from a grammar of field values: {@code *}, values, lists,
 * ranges, steps, {@code L}, {@code W}, {@code LW}, {@code L-n}, {@code #}, {@code nL}, {@code ?}, names, and an
 * optional seconds field. At most one day field is restricted, so that cron-utils' own evaluation of the
 * expression (the reference) means what the dialect means; both-restricted days are tested on their own.
 */
final class CronGrammar {
    private static final String[] DOW_NAMES = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    private static final String[] MONTH_NAMES = {
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
    };
    private final Random random;

    CronGrammar(long seed) {
        this.random = new Random(seed);
    }

    String next() {
        List<String> f = new ArrayList<>();
        if (random.nextInt(3) == 0) {
            f.add(seconds());
        }
        f.add(numeric(0, 59, 1));
        // Hours near DST transitions (0–3) are over-represented, so edges are exercised often.
        f.add(random.nextInt(3) == 0 ? pick("1", "2", "3", "0-3", "1,2", "2/2", "1-2") : numeric(0, 23, 1));
        String dom;
        String dow;
        switch (random.nextInt(4)) {
            case 0 -> {
                dom = dayOfMonth();
                dow = pick("*", "?");
            }
            case 1 -> {
                dom = pick("*", "?");
                dow = dayOfWeek();
            }
            case 2 -> {
                dom = "*";
                dow = pick("*", "?");
            }
            default -> {
                dom = "?";
                dow = "*";
            }
        }
        f.add(dom);
        f.add(month());
        f.add(dow);
        return String.join(" ", f);
    }

    /** Values at least 5 s apart around the minute, as the schedule requires. */
    private String seconds() {
        return switch (random.nextInt(5)) {
            case 0 -> Integer.toString(random.nextInt(60));
            case 1 -> "*/" + pick("5", "10", "15", "20", "30");
            case 2 -> {
                int a = random.nextInt(25);
                yield a + "," + (a + 5 + random.nextInt(25));
            }
            case 3 -> random.nextInt(10) + "-" + (40 + random.nextInt(20)) + "/" + (5 + random.nextInt(20));
            default -> "0";
        };
    }

    private String numeric(int min, int max, int minStep) {
        int span = max - min + 1;
        return switch (random.nextInt(7)) {
            case 0 -> "*";
            case 1 -> Integer.toString(min + random.nextInt(span));
            case 2 -> "*/" + (minStep + random.nextInt(span / 2));
            case 3 -> {
                int a = min + random.nextInt(span);
                yield a + "-" + (a + random.nextInt(max - a + 1));
            }
            case 4 -> list(min, max);
            case 5 -> {
                int a = min + random.nextInt(span / 2);
                yield a + "-" + (a + random.nextInt(max - a + 1)) + "/" + (1 + random.nextInt(span / 3));
            }
            default -> (min + random.nextInt(span / 2)) + "/" + (1 + random.nextInt(span / 2));
        };
    }

    private String list(int min, int max) {
        TreeSet<Integer> v = new TreeSet<>();
        int n = 2 + random.nextInt(3);
        while (v.size() < n) {
            v.add(min + random.nextInt(max - min + 1));
        }
        return String.join(",", v.stream().map(String::valueOf).toList());
    }

    private String dayOfMonth() {
        return switch (random.nextInt(8)) {
            case 0 -> "L";
            case 1 -> (1 + random.nextInt(31)) + "W";
            case 2 -> "LW";
            case 3 -> "L-" + (1 + random.nextInt(5));
            case 4 -> Integer.toString(1 + random.nextInt(28));
            case 5 -> list(1, 31);
            case 6 -> {
                int a = 1 + random.nextInt(28);
                yield a + "-" + (a + random.nextInt(31 - a + 1));
            }
            default -> "*/" + (2 + random.nextInt(10));
        };
    }

    private String dayOfWeek() {
        return switch (random.nextInt(8)) {
            case 0 -> random.nextInt(8) + "";
            case 1 -> random.nextInt(7) + "#" + (1 + random.nextInt(4));
            case 2 -> random.nextInt(7) + "L";
            case 3 -> "1-5";
            case 4 -> list(0, 6);
            case 5 -> DOW_NAMES[random.nextInt(7)];
            case 6 -> "MON-FRI";
            default -> pick("0", "7", "6,0", "SAT,SUN");
        };
    }

    private String month() {
        return switch (random.nextInt(5)) {
            case 0, 1 -> "*";
            case 2 -> list(1, 12);
            case 3 -> MONTH_NAMES[random.nextInt(12)] + "-" + MONTH_NAMES[11];
            default -> "*/" + (1 + random.nextInt(4));
        };
    }

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }
}
