package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON shape of a schedule, read with unknown fields failing, as the API reads it. */
class ScheduleSpecJsonTest {
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Test
    void datesAcceptStringsAndObjectsAndWriteObjects() throws Exception {
        ScheduleSpec spec = JSON.readValue("""
                {"type":"dates","dates":["2030-01-01T09:00:00Z",
                  {"local":"2030-03-31T02:30:00","zone":"Europe/Berlin"},{"instant":"2030-02-01T00:00:00Z"}]}""", ScheduleSpec.class);
        assertThat(spec.dates())
                .containsExactly(
                        DateSpec.of("2030-01-01T09:00:00Z"),
                        DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin"),
                        DateSpec.of("2030-02-01T00:00:00Z"));
        assertThat(JSON.writeValueAsString(spec))
                .isEqualTo("{\"type\":\"dates\",\"dates\":["
                        + "{\"instant\":\"2030-01-01T09:00:00Z\"},"
                        + "{\"local\":\"2030-03-31T02:30:00\",\"zone\":\"Europe/Berlin\"},"
                        + "{\"instant\":\"2030-02-01T00:00:00Z\"}]}");
        assertThat(JSON.readValue(JSON.writeValueAsString(spec), ScheduleSpec.class))
                .isEqualTo(spec);
    }

    @Test
    void cronFieldsRoundTrip() throws Exception {
        String text = "{\"type\":\"cron\",\"start\":\"2030-01-01T00:00:00Z\",\"expression\":\"*/5 * * * *\","
                + "\"timezone\":\"Europe/London\",\"dstGap\":\"skip\",\"dstOverlap\":\"twice\"}";
        ScheduleSpec spec = JSON.readValue(text, ScheduleSpec.class);
        assertThat(spec)
                .isEqualTo(new ScheduleSpec(
                        "cron",
                        null,
                        null,
                        "2030-01-01T00:00:00Z",
                        null,
                        "*/5 * * * *",
                        "Europe/London",
                        "skip",
                        "twice",
                        null));
        assertThat(JSON.writeValueAsString(spec)).isEqualTo(text);
    }

    @Test
    void theKindsFromBeforeReadAsBefore() throws Exception {
        assertThat(JSON.readValue("{\"type\":\"interval\",\"every\":\"PT10S\"}", ScheduleSpec.class))
                .isEqualTo(ScheduleSpec.interval("PT10S", null, null));
        assertThat(JSON.writeValueAsString(ScheduleSpec.once("2030-01-01T00:00:00Z")))
                .isEqualTo("{\"type\":\"once\",\"at\":\"2030-01-01T00:00:00Z\"}");
    }

    @Test
    void unknownFieldsAreRejectedAtEveryLevel() {
        assertThatThrownBy(() -> JSON.readValue("{\"type\":\"cron\",\"expresion\":\"* * * * *\"}", ScheduleSpec.class))
                .isInstanceOf(UnrecognizedPropertyException.class);
        assertThatThrownBy(() -> JSON.readValue(
                        "{\"type\":\"dates\",\"dates\":[{\"local\":\"x\",\"tz\":\"UTC\"}]}", ScheduleSpec.class))
                .isInstanceOf(UnrecognizedPropertyException.class);
    }

    @Test
    void aNumberIsNotADate() {
        assertThatThrownBy(() -> JSON.readValue("{\"type\":\"dates\",\"dates\":[5]}", ScheduleSpec.class))
                .isInstanceOf(com.fasterxml.jackson.databind.exc.MismatchedInputException.class);
    }

    @Test
    void listsAreCopiedSoASpecStaysImmutable() {
        List<DateSpec> dates = new java.util.ArrayList<>(List.of(DateSpec.of("2030-01-01T00:00:00Z")));
        ScheduleSpec spec = ScheduleSpec.dates(dates, null);
        dates.clear();
        assertThat(spec.dates()).hasSize(1);
    }
}
