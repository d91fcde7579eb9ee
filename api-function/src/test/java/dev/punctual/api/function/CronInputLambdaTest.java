package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.jobBody;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.schedule.CronPairs;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * No cron expression a client can send makes the API answer 5xx: generated expressions of the dialect (those of
 * the Quartz comparison, {@link CronPairs}) and mutations of them (typos, numbers out of range, fields dropped or
 * doubled, day forms in the wrong field) go through the Lambda path to the preview and to job creation, in seven
 * zones. Each answer is a success or a 4xx problem naming the expression (or, for a job, the schedule as a whole
 * when it has no occurrence from now on). Seeds are fixed.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class CronInputLambdaTest {
    private static final List<String> ZONES = CronPairs.ZONES;

    @Test
    void previewsOfGeneratedAndMutatedExpressionsAnswer2xxOrAProblemNamingTheExpression() {
        List<String> expressions = expressions(400, 1128L);
        Random random = new Random(5L);
        int ok = 0;
        int refused = 0;
        for (String e : expressions) {
            Map<String, Object> schedule = cron(e, ZONES.get(random.nextInt(ZONES.size())), random);
            Response r = given().contentType(ContentType.JSON)
                    .body(Map.of("schedule", schedule, "count", 5))
                    .post("/v1/schedules/preview");
            if (check(r, schedule, false)) {
                ok++;
            } else {
                refused++;
            }
        }
        // Both kinds of answer were exercised: the generator and the mutations did their work.
        assertThat(ok).isGreaterThan(200);
        assertThat(refused).isGreaterThan(100);
    }

    @Test
    void jobsOfGeneratedAndMutatedExpressionsAre201OrAProblemNamingTheExpression() throws Exception {
        String binaryId = uploaded("cron-input");
        List<String> expressions = expressions(60, 20261128L);
        Random random = new Random(9L);
        int created = 0;
        for (int i = 0; i < expressions.size(); i++) {
            Map<String, Object> schedule = cron(expressions.get(i), ZONES.get(random.nextInt(ZONES.size())), random);
            Response r = given().contentType(ContentType.JSON)
                    .body(jobBody("cron-input-" + i, binaryId, schedule))
                    .post("/v1/jobs");
            if (check(r, schedule, true)) {
                created++;
                given().delete("/v1/jobs/" + r.jsonPath().getString("id"))
                        .then()
                        .statusCode(204);
            }
        }
        assertThat(created).isBetween(15, expressions.size() - 15);
    }

    /** Half as written, half mutated, interleaved. */
    private static List<String> expressions(int n, long seed) {
        CronPairs pairs = new CronPairs(seed);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String e = pairs.next().punctual();
            out.add(i % 2 == 0 ? e : pairs.mutate(e));
        }
        return out;
    }

    private static Map<String, Object> cron(String expression, String zone, Random random) {
        return Map.of(
                "type",
                "cron",
                "expression",
                expression,
                "timezone",
                zone,
                "dstGap",
                random.nextBoolean() ? "shift" : "skip",
                "dstOverlap",
                random.nextBoolean() ? "once" : "twice");
    }

    /** True for a success; a refusal must be a 4xx problem about the expression. Anything else fails. */
    private static boolean check(Response r, Map<String, Object> schedule, boolean job) {
        String ctx = schedule + " answered " + r.statusCode() + " " + r.asString();
        if (r.statusCode() < 300) {
            assertThat(r.statusCode()).as(ctx).isEqualTo(job ? 201 : 200);
            return true;
        }
        assertThat(r.statusCode()).as(ctx).isBetween(400, 499);
        assertThat(r.contentType()).as(ctx).startsWith("application/problem+json");
        List<String> fields = r.jsonPath().getList("errors.field", String.class);
        if (job && fields.equals(List.of("schedule"))) {
            assertThat(r.jsonPath().getString("errors[0].message")).as(ctx).contains("no occurrence from now on");
        } else {
            assertThat(fields).as(ctx).containsExactly("schedule.expression");
        }
        return false;
    }
}
