package dev.punctual.wiring;

import dev.punctual.core.config.ValueType;
import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * The booleans of {@link PunctualConfig} read as core reads its own ({@link ValueType#BOOLEAN}): SmallRye's words for
 * true and false, any other word refused instead of read as false. SmallRye names the key in its error. Registered for
 * reflection because the mapping builds it from its class by its no-argument constructor (quarkus#25940 was that
 * constructor missing from a native image).
 */
@RegisterForReflection
public final class StrictBoolean implements Converter<Boolean> {
    @Override
    public Boolean convert(String value) {
        try {
            return ValueType.BOOLEAN.parse().apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected " + ValueType.BOOLEAN.expected(), e);
        }
    }
}
