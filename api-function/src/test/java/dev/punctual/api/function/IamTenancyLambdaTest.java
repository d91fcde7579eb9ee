package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code auth-mode=iam}: the tenant is the SigV4 caller's principal, every session of a role being one tenant. */
@QuarkusTest
@TestProfile(IamTenancyLambdaTest.IamMode.class)
@WithTestResource(EmulatorsTestResource.class)
class IamTenancyLambdaTest {
    public static class IamMode implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("punctual.auth-mode", "iam");
        }
    }

    @Test
    void callersAreTenantsByPrincipalWithTheSessionsOfOneRoleTogether() {
        String session1 = "iam:arn:aws:sts::111122223333:assumed-role/deployer/session-1";
        String session2 = "iam:arn:aws:sts::111122223333:assumed-role/deployer/session-2";
        String otherRole = "iam:arn:aws:sts::111122223333:assumed-role/intruder/session-1";
        String id = given().header(Gateway.USER, session1)
                .contentType(ContentType.JSON)
                .body(Map.of("name", "r", "sha256", "1".repeat(64), "size", 1))
                .post("/v1/binaries")
                .then()
                .statusCode(201)
                .extract()
                .path("id");
        given().header(Gateway.USER, session2)
                .get("/v1/binaries/" + id)
                .then()
                .statusCode(200)
                .body("id", equalTo(id));
        given().header(Gateway.USER, otherRole).get("/v1/binaries/" + id).then().statusCode(404);
        // A JWT (or nothing) is no identity in IAM mode.
        given().header(Gateway.USER, "alice").get("/v1/binaries/" + id).then().statusCode(401);
        given().header(Gateway.USER, Gateway.ANONYMOUS)
                .get("/v1/binaries/" + id)
                .then()
                .statusCode(401);
    }
}
