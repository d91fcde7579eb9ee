package dev.punctual.bench.compare.peers;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/** Durations as a person writes them ({@code 1s}, {@code 500ms}, {@code 2m}), or ISO-8601 ({@code PT1S}). */
public final class Durations implements ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        Matcher m = SHORT.matcher(value.strip());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            return Duration.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration: '" + value + "' (e.g. 1s, 500ms, 2m, PT1S)", e);
        }
    }

    /** The shortest exact form: {@code 1 s}, {@code 1500 ms}. */
    public static String format(Duration d) {
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + " s";
        }
        return d.toMillis() + " ms";
    }
}
