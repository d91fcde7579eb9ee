package dev.punctual.core.config;

import java.time.Duration;

/**
 * A duration's configured text read as the Quarkus deployables always read it (Quarkus's {@code DurationConverter}),
 * so that every {@code PUNCTUAL_LEASE=PT60S} or {@code 60s} a deployment sets keeps its meaning now that core reads
 * the text itself. Wiring's {@code ConfigTextTest} holds the two to the same answers.
 *
 * <p>Accepted: a whole number of seconds ({@code 60}); a whole number with {@code ms}, {@code s}, {@code m},
 * {@code h} or {@code d} ({@code 500ms}, {@code 5m}, {@code 2d}); ISO-8601 ({@code PT1M}, {@code P30D}), which may
 * leave out its {@code PT} ({@code 1h30m}, {@code 1.5s}). Letters in any case; spaces around it ignored.
 */
final class Durations {
    private Durations() {}

    /**
     * The duration {@code text} says; null when it is blank (unset, as Quarkus takes it).
     *
     * @throws IllegalArgumentException (or ArithmeticException, past {@link Duration}'s range) if it is none
     */
    static Duration parse(String text) {
        String v = text.trim();
        int len = v.length();
        if (len == 0) {
            return null;
        }
        if (isWhole(v)) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        char unit = Character.toLowerCase(v.charAt(len - 1));
        String number = v.substring(0, len - 1);
        if (isWhole(number)) {
            long n = Long.parseLong(number);
            Duration d = switch (unit) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                default -> null;
            };
            if (d != null) {
                return d;
            }
        }
        if (len > 2
                && unit == 's'
                && Character.toLowerCase(v.charAt(len - 2)) == 'm'
                && isWhole(v.substring(0, len - 2))) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, len - 2)));
        }
        // What is left is ISO-8601, its P or PT perhaps left out; Duration.parse says what is wrong with it.
        if (isDecimal(number) && (unit == 'h' || unit == 'm' || unit == 's')) {
            return Duration.parse("PT" + v);
        }
        if (isDecimal(number) && unit == 'd') {
            return Duration.parse("P" + v);
        }
        if (startsLikeDigits(v)) {
            return Duration.parse("PT" + v);
        }
        return Duration.parse(v);
    }

    /** Digits, after an optional sign. */
    private static boolean isWhole(String s) {
        int from = signed(s);
        return from < s.length() && s.substring(from).chars().allMatch(Durations::isDigit);
    }

    /** Digits with one point among them, after an optional sign. */
    private static boolean isDecimal(String s) {
        String rest = s.substring(signed(s));
        return rest.chars().filter(c -> c == '.').count() == 1 && rest.chars().allMatch(c -> c == '.' || isDigit(c));
    }

    /** A digit first, or a sign not followed by ISO-8601's P. */
    private static boolean startsLikeDigits(String s) {
        char c = s.charAt(0);
        return isDigit(c) || ((c == '-' || c == '+') && (s.length() == 1 || s.charAt(1) != 'P'));
    }

    private static int signed(String s) {
        return !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }
}
