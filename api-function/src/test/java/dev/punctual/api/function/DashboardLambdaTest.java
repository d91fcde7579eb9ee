package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's files through the Lambda path, as API Gateway's public {@code GET /ui…} routes deliver them (no
 * authorizer context): served with their policy, while anything that reaches a resource that way stays closed.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class DashboardLambdaTest {
    @Test
    void thePageAndItsModulesAreServedWithAPolicyThatAllowsOnlyThemselvesTheApiAndTheStorage() {
        given().header(Gateway.USER, Gateway.ANONYMOUS)
                .get("/ui/")
                .then()
                .statusCode(200)
                .contentType(startsWith("text/html"))
                .header("Content-Security-Policy", containsString("script-src 'self';"))
                .header("Content-Security-Policy", containsString("connect-src 'self' http://127.0.0.1:"))
                .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                .header("X-Content-Type-Options", equalTo("nosniff"))
                .body(containsString("<script type=\"module\" src=\"app.js\"></script>"));
        for (String module : new String[] {"app.js", "api.js", "dom.js", "jobs.js", "run.js", "editor.js", "dead.js"}) {
            given().header(Gateway.USER, Gateway.ANONYMOUS)
                    .get("/ui/" + module)
                    .then()
                    .statusCode(200)
                    .contentType(containsString("javascript"))
                    .body(startsWith("// "));
        }
    }

    @Test
    void uiWithoutItsSlashLeadsToThePage() {
        given().header(Gateway.USER, Gateway.ANONYMOUS)
                .redirects()
                .follow(false)
                .get("/ui")
                .then()
                .statusCode(302)
                .header("Location", equalTo("/ui/"));
    }

    @Test
    void aResourceReachedThroughTheDashboardsPublicRouteIsNotAnswered() {
        // API Gateway routes /ui/{proxy+} without an authorizer; dot segments after /ui/ must not lead to data.
        given().header(Gateway.USER, Gateway.ANONYMOUS)
                .urlEncodingEnabled(false)
                .get("/ui/%2e%2e/v1/jobs")
                .then()
                .statusCode(401)
                .contentType(startsWith("application/problem+json"));
    }
}
