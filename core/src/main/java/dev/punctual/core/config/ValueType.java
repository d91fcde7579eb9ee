package dev.punctual.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * How a {@code punctual.*} value's text is read, and what a bad one is told it should have been. Each reads as the
 * Quarkus deployables read the same key when it was a typed method of a configuration mapping (SmallRye Config's
 * converters; Quarkus's for durations), so that no value a deployment sets changes its meaning; wiring's
 * {@code ConfigTextTest} compares them with those converters. One difference on purpose: a boolean that is neither
 * a true word nor a false word, which SmallRye reads as false, is refused ({@link #BOOLEAN}).
 *
 * @param expected what a value should be, for the message that refuses one
 * @param parse    the value of a property's text; null for text that counts as unset (blank, as Quarkus takes it)
 */
public record ValueType<T>(String expected, Function<String, T> parse) {

    /** Kept as written, as SmallRye hands a string over (it never trims one). */
    public static final ValueType<String> TEXT = of("text", text -> text);

    public static final ValueType<Path> PATH = of("a file path", Path::of);

    public static final ValueType<Duration> DURATION =
            of("a duration such as PT60S, 60s, 500ms, 5m, 1h or 2d (a bare number is seconds)", Durations::parse);

    public static final ValueType<Integer> INT = of("a whole number", trimmed(Integer::valueOf));

    public static final ValueType<Long> LONG = of("a whole number", trimmed(Long::valueOf));

    /** SmallRye's words for true and false, in any case. */
    static final List<String> TRUE = List.of("true", "1", "yes", "y", "on", "ja", "j", "si", "sim", "oui");

    static final List<String> FALSE = List.of("false", "0", "no", "n", "off", "nein", "não", "non");

    /**
     * true or false in SmallRye's words, in any case. Any other word is refused, where SmallRye reads it as false:
     * {@code sandbox=ture} would otherwise start executors without their sandbox, and a value the reader cannot take
     * stops the start like any other key's.
     */
    public static final ValueType<Boolean> BOOLEAN = of("true or false (also yes/no, on/off, 1/0)", text -> {
        String word = text.trim();
        if (word.isEmpty()) {
            return null;
        }
        if (TRUE.stream().anyMatch(word::equalsIgnoreCase)) {
            return true;
        }
        if (FALSE.stream().anyMatch(word::equalsIgnoreCase)) {
            return false;
        }
        throw new IllegalArgumentException("neither true nor false");
    });

    static <T> ValueType<T> of(String expected, Function<String, T> parse) {
        return new ValueType<>(expected, parse);
    }

    /**
     * One of an enum's {@code values}, read by its own {@code parse} (which decides what it accepts); the message
     * lists them as configured, in lower case.
     */
    static <E extends Enum<E>> ValueType<E> oneOf(E[] values, Function<String, E> parse) {
        List<String> names = Arrays.stream(values)
                .map(v -> v.name().toLowerCase(Locale.ROOT))
                .toList();
        String last = names.get(names.size() - 1);
        String rest = String.join(", ", names.subList(0, names.size() - 1));
        return of(rest.isEmpty() ? last : rest + " or " + last, parse);
    }

    /** Trimmed first, blank being unset, as SmallRye reads numbers. */
    private static <T> Function<String, T> trimmed(Function<String, T> parse) {
        return text -> text.trim().isEmpty() ? null : parse.apply(text.trim());
    }
}
