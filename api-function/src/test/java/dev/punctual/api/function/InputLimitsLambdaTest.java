package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.countJobs;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.hourlyJob;
import static dev.punctual.api.function.Problems.postJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values inside each field's own limits that still cannot be stored or computed: args and env together over the
 * item budget (413), instants outside the supported years, over-long schedule texts (422 naming the field).
 * Nothing is written in any of these cases.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class InputLimitsLambdaTest {
    private static final String FAR = "+10000-01-01T00:00:00Z";
    private static String binaryId;

    private static String binary() throws Exception {
        if (binaryId == null) {
            binaryId = uploaded("limits.sh");
        }
        return binaryId;
    }

    private static Response create(Map<String, Object> body) {
        return postJson("/v1/jobs", body);
    }

    private static Map<String, Object> with(String field, Object value) throws Exception {
        Map<String, Object> b = hourlyJob("limits", binary());
        b.put(field, value);
        return b;
    }

    @Test
    void argsTogetherOverTheItemBudgetAreTooLargeAndNothingIsWritten() throws Exception {
        int before = countJobs();
        // 80 arguments of 4000 characters: each within the limits, 320 KB together.
        assertProblem(create(with("args", Collections.nCopies(80, "a".repeat(4000)))), 413, "args")
                .body("detail", containsString("262144"));
        assertThat(countJobs()).isEqualTo(before);
    }

    @Test
    void argsAndEnvTogetherOverTheItemBudgetAreTooLarge() throws Exception {
        Map<String, Object> b = with("args", Collections.nCopies(40, "é".repeat(2000))); // 2 bytes each in UTF-8
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            env.put("VAR_" + i, "v".repeat(4000));
        }
        b.put("env", env);
        assertProblem(create(b), 413, "args").body("errors.field", org.hamcrest.Matchers.hasItem("env"));
    }

    @Test
    void envOverTheItemBudgetIsTooLarge() throws Exception {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            env.put("VAR_" + i, "v".repeat(4000));
        }
        assertProblem(create(with("env", env)), 413, "env");
    }

    static Stream<Arguments> farInstants() {
        String soon = Instant.now()
                .plus(1, ChronoUnit.DAYS)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();
        return Stream.of(
                Arguments.of(Map.of("type", "once", "at", FAR), "schedule.at"),
                Arguments.of(Map.of("type", "interval", "every", "PT1H", "start", FAR), "schedule.start"),
                Arguments.of(Map.of("type", "interval", "every", "PT1H", "start", soon, "end", FAR), "schedule.end"),
                Arguments.of(
                        Map.of("type", "interval", "every", "PT1H", "start", "-999999999-01-01T00:00:00Z"),
                        "schedule.start"),
                Arguments.of(Map.of("type", "cron", "expression", "0 * * * *", "start", FAR), "schedule.start"),
                Arguments.of(Map.of("type", "cron", "expression", "0 * * * *", "end", FAR), "schedule.end"),
                Arguments.of(
                        Map.of("type", "cron", "expression", "0 * * * *", "start", "-999999999-01-01T00:00:00Z"),
                        "schedule.start"),
                Arguments.of(Map.of("type", "dates", "dates", List.of(soon, FAR)), "schedule.dates[1]"),
                Arguments.of(
                        Map.of(
                                "type",
                                "dates",
                                "dates",
                                List.of(Map.of("local", "+10000-01-01T00:00:00", "zone", "UTC"))),
                        "schedule.dates[0].local"));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("farInstants")
    void anInstantPastYear9999IsUnprocessable(Map<String, Object> schedule, String field) throws Exception {
        assertProblem(create(with("schedule", schedule)), 422, field);
        assertProblem(postJson("/v1/schedules/preview", Map.of("schedule", schedule)), 422, field);
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(
            strings = {
                "-999999999-01-01T00:00:00Z",
                "+999999999-12-31T23:59:59Z",
                "+10000-01-01T00:00:00Z",
                "0001-01-01T00:00:00Z"
            })
    void aPreviewFromOutsideTheSupportedYearsIsUnprocessable(String from) {
        Map<String, Object> interval = Map.of("type", "interval", "every", "PT1H", "start", "2030-01-01T00:00:00Z");
        assertProblem(postJson("/v1/schedules/preview", Map.of("schedule", interval, "from", from)), 422, "from");
        Map<String, Object> cron = Map.of("type", "cron", "expression", "0 0 1 1 *");
        assertProblem(postJson("/v1/schedules/preview", Map.of("schedule", cron, "from", from)), 422, "from");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"from", "to"})
    void aBackfillBoundOutsideTheSupportedYearsIsUnprocessable(String bound) throws Exception {
        String id = createJob(hourlyJob("backfill-far", binary()));
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Map<String, Object> body = new HashMap<>(Map.of("from", now, "to", now));
        body.put(bound, "-999999999-01-01T00:00:00Z");
        assertProblem(postJson("/v1/jobs/" + id + "/backfill", body), 422, bound);
    }

    @Test
    void aCronExpressionOverTheLengthCapIsUnprocessable() throws Exception {
        // Valid but for its length: the fields are padded with spaces.
        String padded = "0  0 * * *" + " ".repeat(300);
        assertProblem(
                        create(with("schedule", Map.of("type", "cron", "expression", padded))),
                        422,
                        "schedule.expression")
                .body("detail", containsString("256"));
    }

    @Test
    void zonesOverTheLengthCapAreUnprocessable() throws Exception {
        String zone = "Europe/" + "X".repeat(100);
        assertProblem(
                        create(with("schedule", Map.of("type", "cron", "expression", "0 0 * * *", "timezone", zone))),
                        422,
                        "schedule.timezone")
                .body("detail", containsString("64"));
        assertProblem(
                        create(with(
                                "schedule",
                                Map.of(
                                        "type",
                                        "dates",
                                        "dates",
                                        List.of(Map.of("local", "2030-01-01T00:00:00", "zone", zone))))),
                        422,
                        "schedule.dates[0].zone")
                .body("detail", containsString("64"));
    }
}
