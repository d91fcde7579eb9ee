package dev.punctual.core.config;

import java.util.function.BiConsumer;

/**
 * One {@code punctual.*} key of {@link SettingsSource}: its name, how its text is read, and what its value sets.
 *
 * @param <T> what its text is read as
 */
public final class SettingKey<T> {
    private final String name;
    private final ValueType<T> type;
    private final String example;
    private final BiConsumer<SettingsDraft, T> set;

    SettingKey(String name, ValueType<T> type, String example, BiConsumer<SettingsDraft, T> set) {
        this.name = name;
        this.type = type;
        this.example = example;
        this.set = set;
    }

    /** The name under {@code punctual.}, as docs/configuration.md writes it: {@code retry-base}. */
    public String name() {
        return name;
    }

    /** The configuration property: {@code punctual.retry-base}. */
    public String property() {
        return SettingsSource.PREFIX + name;
    }

    /** The environment variable that sets it: {@code PUNCTUAL_RETRY_BASE}. */
    public String environmentName() {
        return SettingsSource.environmentName(property());
    }

    public ValueType<T> type() {
        return type;
    }

    /** A value other than the default that it accepts: what the tests set to see it take effect. */
    public String example() {
        return example;
    }

    /**
     * Sets what {@code text} says, if anything (blank text is unset).
     *
     * @throws IllegalArgumentException naming this key and the text: the text is not a value of its type, or a
     *     record it is part of refuses the value
     */
    void apply(SettingsDraft draft, String text) {
        T value;
        try {
            value = type.parse().apply(text);
        } catch (RuntimeException e) {
            throw refused(text, "expected " + type.expected(), e);
        }
        if (value == null) {
            return;
        }
        try {
            set.accept(draft, value);
            draft.nested();
        } catch (IllegalArgumentException e) {
            throw refused(text, e.getMessage(), e);
        }
    }

    private IllegalArgumentException refused(String text, String why, RuntimeException cause) {
        return new IllegalArgumentException(
                property() + " (env " + environmentName() + ") is \"" + text + "\": " + why, cause);
    }

    @Override
    public String toString() {
        return property();
    }
}
