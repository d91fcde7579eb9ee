package dev.punctual.core.schedule;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One entry of a {@code dates} schedule: an instant with an offset ({@code "2030-01-01T09:00:00Z"}, also accepted as
 * a bare JSON string) or a wall-clock time with its own IANA zone ({@code {"local":"2030-03-31T02:30:00",
 * "zone":"Europe/Berlin"}}). Always written back as an object, so the stored and returned form is one shape.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DateSpec(String instant, String local, String zone) {

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public DateSpec {}

    /** The string form. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static DateSpec of(String instant) {
        return new DateSpec(instant, null, null);
    }

    public static DateSpec local(String local, String zone) {
        return new DateSpec(null, local, zone);
    }
}
