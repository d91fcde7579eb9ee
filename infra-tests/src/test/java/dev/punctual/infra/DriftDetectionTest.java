package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract checks can fail: on a copy of infra/terraform with one deliberate drift, the matching check
 * reports it. (A check that passes on anything would prove nothing.)
 */
class DriftDetectionTest {
    @TempDir
    Path copy;

    @Test
    void aRenamedTableIsReported() throws Exception {
        Contract c = mutated(s -> s.replace("\"${var.name_prefix}-runs\"", "\"${var.name_prefix}-run-items\""));
        assertThat(c.tables()).anyMatch(d -> d.contains("no aws_dynamodb_table named ${var.name_prefix}-runs"));
    }

    @Test
    void aDroppedPermissionIsReported() throws Exception {
        Contract c = mutated(s -> s.replaceFirst("\"sqs:ChangeMessageVisibility\",?", ""));
        Set<CodeActions.Permission> needed = new CodeActions().derive(
                Components.ALL.get(2).entryClasses(), Components.ALL.get(2).entryMethods());
        assertThat(c.permissions("executor", needed)).anyMatch(d -> d.contains("lacks sqs:ChangeMessageVisibility"));
    }

    @Test
    void anExtraPermissionIsReported() throws Exception {
        // The executor's statement (the sweeper's dead-letter statement also allows sqs:ReceiveMessage).
        Contract c = mutated(s -> s.replaceFirst("\"sqs:ReceiveMessage\", \"sqs:DeleteMessage\", \"sqs:Change",
                "\"sqs:ReceiveMessage\", \"sqs:PurgeQueue\", \"sqs:DeleteMessage\", \"sqs:Change"));
        Set<CodeActions.Permission> needed = new CodeActions().derive(
                Components.ALL.get(2).entryClasses(), Components.ALL.get(2).entryMethods());
        assertThat(c.permissions("executor", needed)).anyMatch(d -> d.contains("sqs:PurgeQueue"));
    }

    @Test
    void aWrongMaxReceiveCountAndAnUnknownVariableAreReported() throws Exception {
        Contract c = mutated(s -> s.replace("maxReceiveCount     = 25", "maxReceiveCount     = 3")
                .replace("maxReceiveCount = 25", "maxReceiveCount = 3")
                .replace("PUNCTUAL_PREFIX", "PUNCTUAL_PREFX"));
        assertThat(c.queues()).anyMatch(d -> d.contains("maxReceiveCount"));
        assertThat(c.environment(Components.environments(Terraform.load(copy))))
                .anyMatch(d -> d.contains("PUNCTUAL_PREFX"));
    }

    @Test
    void aRouteWithoutAuthorizationIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("local.route_authorization_types[var.auth]", "\"NONE\""));
        assertThat(a.routes()).anyMatch(d -> d.contains("authorization_type is NONE in every mode"));
    }

    @Test
    void aRouteOpenUnderNoneWithoutTheAcknowledgementIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replaceFirst(
                "none = var.allow_unauthenticated_api \\? \"NONE\" : \"AWS_IAM\"", "none = \"NONE\""));
        assertThat(a.routes()).anyMatch(d -> d.contains(".none is NONE without var.allow_unauthenticated_api"));
    }

    @Test
    void aJwtRouteWithoutItsAuthorizerIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replaceAll(" *authorizer_id += .*\n", ""));
        assertThat(a.routes()).anyMatch(d -> d.contains("may be JWT but has no authorizer_id"));
    }

    @Test
    void aPublicFunctionUrlIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("local.function_url_authorization_types[var.auth]",
                "\"NONE\""));
        assertThat(a.functionUrls()).anyMatch(d -> d.contains("aws_lambda_function_url.api: authorization_type is NONE"));
    }

    @Test
    void aDefaultAuthOfNoneIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("default     = \"jwt\"", "default     = \"none\""));
        assertThat(a.variables()).anyMatch(d -> d.contains("variable auth: default: expected jwt, terraform says none"));
    }

    @Test
    void anAuthModeNotTakenFromVarAuthIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("PUNCTUAL_AUTH_MODE = var.auth", "PUNCTUAL_AUTH_MODE = \"none\""));
        assertThat(a.apiEnvironment()).anyMatch(d -> d.contains("PUNCTUAL_AUTH_MODE to \"none\", not var.auth"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "iam")).anyMatch(d -> d.startsWith("plan with iam ")
                && d.contains("PUNCTUAL_AUTH_*: expected {PUNCTUAL_AUTH_IAM_TENANT=principal, PUNCTUAL_AUTH_MODE=iam}"));
    }

    @Test
    void aMissingAcknowledgementCheckIsReported() throws Exception {
        // The precondition deleted (Terraform refuses a constant condition, so it cannot be replaced by `true`).
        AuthContract a = mutatedAuth(s -> s.replaceAll("(?s)\\n *precondition \\{\\n *condition *= var\\.auth != "
                + "\"none\" \\|\\| var\\.allow_unauthenticated_api\\n.*?\\n *}\\n", "\n"));
        assertThat(a.guards()).anyMatch(d -> d.contains("no precondition ties auth = \"none\" to"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "none without allow_unauthenticated_api")).anyMatch(d -> d.startsWith(
                "plan with none without allow_unauthenticated_api") && d.contains("succeeded; it must fail"));
    }

    @Test
    void aMissingAudienceCheckIsReported() throws Exception {
        // Both rules that ask for an audience (an issuer needs one; jwt needs issuer and audience) dropped.
        AuthContract a = mutatedAuth(s -> s.replace("length(var.jwt_audience) > 0", "true"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "jwt with an issuer and no audience")).anyMatch(d -> d.startsWith(
                "plan with jwt with an issuer and no audience") && d.contains("succeeded; it must fail"));
    }

    @Test
    void anExamplePassingAVariableTheModuleLacksIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("variable \"allow_unauthenticated_api\"",
                "variable \"allow_public_api\"").replace("var.allow_unauthenticated_api", "var.allow_public_api"));
        assertThat(a.variables()).anyMatch(d -> d.contains("no variable allow_unauthenticated_api"));
        assertThat(a.example("localstack", Terraform.load(Terraform.MODULE.resolve("examples/localstack"))))
                .anyMatch(d -> d.contains("passes allow_unauthenticated_api, which the module does not declare"));
    }

    private AuthContract mutatedAuth(UnaryOperator<String> edit) throws Exception {
        return new AuthContract(mutatedModule(edit));
    }

    private Contract mutated(UnaryOperator<String> edit) throws Exception {
        return new Contract(mutatedModule(edit));
    }

    private Terraform mutatedModule(UnaryOperator<String> edit) throws Exception {
        boolean changed = false;
        try (var files = Files.list(Terraform.MODULE)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".tf")).toList()) {
                String text = Files.readString(f);
                String edited = edit.apply(text);
                changed |= !edited.equals(text);
                Files.writeString(copy.resolve(f.getFileName()), edited);
            }
        }
        assertThat(changed).as("the mutation applies to infra/terraform").isTrue();
        return Terraform.load(copy);
    }
}
