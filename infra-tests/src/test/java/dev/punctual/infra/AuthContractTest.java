package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API is never public by accident: every route and the function URL require a JWT or a SigV4 signature
 * unless auth = "none" is acknowledged; auth defaults to jwt; the api Lambda is told the mode the routes enforce;
 * and Terraform itself refuses the configurations the rules forbid.
 */
class AuthContractTest {
    static Terraform tf;
    static AuthContract auth;

    @BeforeAll
    static void load() throws Exception {
        tf = Terraform.load(Terraform.MODULE);
        auth = new AuthContract(tf);
    }

    @Test
    void everyRouteRequiresAuthorization() {
        assertThat(auth.routes()).isEmpty();
    }

    @Test
    void theFunctionUrlIsNeverOpenUnlessAcknowledged() {
        assertThat(auth.functionUrls()).isEmpty();
    }

    @Test
    void authDefaultsToJwtAndNoneNeedsAnAcknowledgementThatSaysWhatItExposes() {
        assertThat(auth.variables()).isEmpty();
        assertThat(auth.guards()).isEmpty();
    }

    @Test
    void theApiLambdaIsToldTheModeTheRoutesEnforce() {
        assertThat(auth.apiEnvironment()).isEmpty();
    }

    @Test
    void theExamplesChooseAuthExplicitlyAndPassOnlyDeclaredVariables() throws Exception {
        for (String example : java.util.List.of("minimal", "localstack")) {
            assertThat(auth.example(example, Terraform.load(Terraform.MODULE.resolve("examples/" + example))))
                    .isEmpty();
        }
    }

    @Test
    void terraformPlanRefusesWhatTheRulesForbidAndPlansTheRest(@TempDir Path dir) throws Exception {
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(auth.plans(dir)).isEmpty();
    }
}
