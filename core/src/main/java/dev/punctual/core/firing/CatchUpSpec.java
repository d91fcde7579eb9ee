package dev.punctual.core.firing;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Catch-up as users write it: {@code {"mode": "skip" | "latest" | "all", "maxAge": "P1D", "maxRuns": 100}}, or just
 * the mode as a string ({@code "latest"}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CatchUpSpec(String mode, String maxAge, Integer maxRuns) {

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public CatchUpSpec {}

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static CatchUpSpec of(String mode) {
        return new CatchUpSpec(mode, null, null);
    }
}
