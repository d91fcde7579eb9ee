package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

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
 * DurationConverter, found as Quarkus finds it; SmallRye's for numbers and booleans). The one difference on purpose:
 * a word that is neither true nor false, which SmallRye reads as false, core refuses.
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
            "  ");
    /** What SmallRye reads as false and core refuses. */
    private static final List<String> NOT_BOOLEANS = List.of("ture", "2", "enabled", "falsch");

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
    void booleansAreReadAsSmallRyeReadsThemAndAnyOtherWordIsRefused() {
        assertSameAs(ValueType.BOOLEAN, BOOLEANS, Boolean.class);
        SmallRyeConfig config = configOf(NOT_BOOLEANS);
        for (int i = 0; i < NOT_BOOLEANS.size(); i++) {
            String text = NOT_BOOLEANS.get(i);
            assertThat(config.getOptionalValue("v" + i, Boolean.class))
                    .as("SmallRye reads \"%s\" as", text)
                    .contains(false);
            assertThat(read(() -> Optional.ofNullable(ValueType.BOOLEAN.parse().apply(text))))
                    .as("core reads \"%s\" as", text)
                    .isEqualTo("refused");
        }
    }

    /** PunctualConfig's boolean goes through the same reading ({@link StrictBoolean}), in the mapping itself. */
    @Test
    void punctualConfigsBooleanIsReadAsCoresAre() {
        assertThat(mapping("yes").s3PathStyle()).contains(true);
        assertThat(mapping("OFF").s3PathStyle()).contains(false);
        assertThat(mapping(" ").s3PathStyle()).isEmpty();
        Throwable refused = catchThrowable(() -> mapping("ture"));
        assertThat(refused).isNotNull();
        assertThat(refused.getMessage()).contains("punctual.s3-path-style", "ture", "expected true or false");
    }

    private static PunctualConfig mapping(String s3PathStyle) {
        return new SmallRyeConfigBuilder()
                .withMapping(PunctualConfig.class)
                .withSources(new PropertiesConfigSource(Map.of("punctual.s3-path-style", s3PathStyle), "texts", 100))
                .build()
                .getConfigMapping(PunctualConfig.class);
    }

    /** Each text read by {@code type} and by the configuration as {@code as}: the same value, or both refuse it. */
    private static <T> void assertSameAs(ValueType<T> type, List<String> texts, Class<T> as) {
        SmallRyeConfig config = configOf(texts);
        for (int i = 0; i < texts.size(); i++) {
            String name = "v" + i;
            String text = texts.get(i);
            Object quarkus = read(() -> config.getOptionalValue(name, as));
            Object core = read(() -> Optional.ofNullable(type.parse().apply(text)));
            assertThat(core).as("\"%s\" as %s", text, as.getSimpleName()).isEqualTo(quarkus);
        }
    }

    /** The application's converters over {@code texts}, as {@code v0}, {@code v1}, … */
    private static SmallRyeConfig configOf(List<String> texts) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < texts.size(); i++) {
            values.put("v" + i, texts.get(i));
        }
        return new SmallRyeConfigBuilder()
                .addDiscoveredConverters()
                .withSources(new PropertiesConfigSource(values, "texts", 100))
                .build();
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
