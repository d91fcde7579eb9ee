package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Declaring a kind of resource once (for_each over the components) must not mix the components up: each Lambda
 * has its own role, log group, logs policy, alias and settings; each component's permissions go to its own role;
 * a deployment of the previous layout keeps every resource; variables and outputs stay typed and described.
 */
class WiringContractTest {
    static Terraform tf;
    static WiringContract wiring;

    @BeforeAll
    static void load() throws Exception {
        tf = Terraform.load(Terraform.MODULE);
        wiring = new WiringContract(tf);
    }

    @Test
    void eachLambdaRunsAsItsOwnRoleLogsToItsOwnGroupAndHasItsOwnLiveAlias() {
        assertThat(wiring.lambdas()).isEmpty();
    }

    @Test
    void eachLambdaTakesItsOwnSettingsAndOnlyTheApiIsToldAnAuthenticationMode() {
        assertThat(wiring.lambdaSettings(new Contract(tf))).isEmpty();
    }

    @Test
    void eachComponentsPermissionsAreAttachedToItsOwnRoleOnly() {
        assertThat(wiring.attachments()).isEmpty();
    }

    @Test
    void everyResourceOfThePreviousLayoutIsStillDeclaredOrMovedToOneThatIs() throws Exception {
        assertThat(PreviousLayout.addresses())
                .as("the previous layout's state")
                .contains(
                        "aws_lambda_function.api",
                        "aws_iam_role.executor_execution[0]",
                        "aws_iam_role_policy.api_kms[0]");
        assertThat(PreviousLayout.declaredOrMoved(tf)).isEmpty();
    }

    @Test
    void everyVariableIsTypedAndDescribedAndEveryOutputDescribed() throws Exception {
        assertThat(tf.variables()).isNotEmpty();
        assertThat(WiringContract.documented("infra/terraform", tf)).isEmpty();
        for (String example : List.of("minimal", "localstack")) {
            assertThat(WiringContract.documented(
                            "examples/" + example, Terraform.load(Terraform.MODULE.resolve("examples/" + example))))
                    .isEmpty();
        }
    }
}
