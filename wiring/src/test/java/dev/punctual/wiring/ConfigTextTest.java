package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.ValueType;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Core reads the text of a {@code punctual.*} value itself ({@link ValueType}); each type must take exactly the values
 * Quarkus took when the key was a typed method of a configuration mapping, and read them alike, so that no deployment's
 * value changes meaning. Compared here with the converters the application's configuration has (Quarkus's
 * DurationConverter, found as Quarkus finds it; SmallRye's for numbers and booleans).
 */
class ConfigTextTest {
    private static final List<String> DURATIONS = List.of(
            "PT1M",
            "pt1m",
            "PT60S",
            "P30D",
            "P1DT2H",
            "PT0S",
            "-PT5S",
            "+P1D",
            "-P1D",
            "60",
            "+60",
            "-5",
            "0",
            "60s",
            "60S",
            " 60s ",
            "5m",
            "1h",
            "2d",
            "500ms",
            "500MS",
            "1.5s",
            "1.5m",
            "1.5h",
            "2.5d",
            "1h30m",
            "1H30M",
            "0s",
            "abc",
            "s",
            "ms",
            "m",
            "1x",
            "10 s",
            "1e3",
            "99999999999999999999",
            "9999999999999999d",
            "  ",
            ".s",
            ".",
            "+",
            "-",
            "PT",
            "P",
            "1.",
            "1..5s",
            "1h-30m",
            "5 m",
            "1d2h");
    private static final List<String> WHOLE_NUMBERS = List.of(
            "5",
            " 5 ",
            "+5",
            "-5",
            "05",
            "0",
            "5.0",
            "five",
            "2147483648",
            "9223372036854775808",
            "0x10",
            "  ",
            "1_000",
            "1 000",
            "\u0663");
    private static final List<String> BOOLEANS = List.of(
            "true",
            "TRUE",
            " true ",
            "1",
            "yes",
            "Y",
            "on",
            "ja",
            "J",
            "si",
            "SIM",
            "oui",
            "false",
            "0",
            "no",
            "N",
            "off",
            "nein",
            "N\u00c3O",
            "non",
            "ture",
            "2",
            "enabled",
            "  ");

    @Test
    void durationsAreReadAsQuarkusReadsThem() {
        assertSameAs(ValueType.DURATION, DURATIONS, Duration.class);
    }

    @Test
    void wholeNumbersAreReadAsSmallRyeReadsThem() {
        assertSameAs(ValueType.INT, WHOLE_NUMBERS, Integer.class);
        assertSameAs(ValueType.LONG, WHOLE_NUMBERS, Long.class);
    }

    @Test
    void booleansAreReadAsSmallRyeReadsThem() {
        assertSameAs(ValueType.BOOLEAN, BOOLEANS, Boolean.class);
    }

    /** Each text read by {@code type} and by the configuration as {@code as}: the same value, or both refuse it. */
    private static <T> void assertSameAs(ValueType<T> type, List<String> texts, Class<T> as) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < texts.size(); i++) {
            values.put("v" + i, texts.get(i));
        }
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDiscoveredConverters()
                .withSources(new PropertiesConfigSource(values, "texts", 100))
                .build();
        for (int i = 0; i < texts.size(); i++) {
            String name = "v" + i;
            String text = texts.get(i);
            Object quarkus = read(() -> config.getOptionalValue(name, as));
            Object core = read(() -> Optional.ofNullable(type.parse().apply(name, text)));
            assertThat(core).as("\"%s\" as %s", text, as.getSimpleName()).isEqualTo(quarkus);
        }
    }

    /** The value read, empty when unset, or "refused" when reading it throws. */
    private static Object read(Supplier<Optional<?>> reading) {
        try {
            return reading.get();
        } catch (RuntimeException e) {
            return "refused";
        }
    }
}
