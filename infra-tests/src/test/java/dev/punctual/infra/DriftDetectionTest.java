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
        assertThat(c.permissions("executor", executorNeeds()))
                .anyMatch(d -> d.contains("lacks sqs:ChangeMessageVisibility"));
    }

    @Test
    void anExtraPermissionIsReported() throws Exception {
        // The executor's statement (the sweeper's dead-letter statement also allows sqs:ReceiveMessage).
        Contract c = mutated(s -> s.replaceFirst(
                "\"sqs:ReceiveMessage\", \"sqs:DeleteMessage\", \"sqs:Change",
                "\"sqs:ReceiveMessage\", \"sqs:PurgeQueue\", \"sqs:DeleteMessage\", \"sqs:Change"));
        assertThat(c.permissions("executor", executorNeeds())).anyMatch(d -> d.contains("sqs:PurgeQueue"));
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
        AuthContract a = mutatedAuth(s ->
                s.replaceFirst("none = var.allow_unauthenticated_api \\? \"NONE\" : \"AWS_IAM\"", "none = \"NONE\""));
        assertThat(a.routes()).anyMatch(d -> d.contains(".none is NONE without var.allow_unauthenticated_api"));
    }

    @Test
    void aJwtRouteWithoutItsAuthorizerIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replaceAll(" *authorizer_id += .*\n", ""));
        assertThat(a.routes()).anyMatch(d -> d.contains("may be JWT but has no authorizer_id"));
    }

    @Test
    void aPublicFunctionUrlIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("local.function_url_authorization_types[var.auth]", "\"NONE\""));
        assertThat(a.functionUrls())
                .anyMatch(d -> d.contains("aws_lambda_function_url.api: authorization_type is NONE"));
    }

    @Test
    void aDefaultAuthOfNoneIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("default     = \"jwt\"", "default     = \"none\""));
        assertThat(a.variables())
                .anyMatch(d -> d.contains("variable auth: default: expected jwt, terraform says none"));
    }

    @Test
    void anAuthModeNotTakenFromVarAuthIsReported() throws Exception {
        AuthContract a = mutatedAuth(s -> s.replace("PUNCTUAL_AUTH_MODE = var.auth", "PUNCTUAL_AUTH_MODE = \"none\""));
        assertThat(a.apiEnvironment()).anyMatch(d -> d.contains("PUNCTUAL_AUTH_MODE to \"none\", not var.auth"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "iam"))
                .anyMatch(
                        d -> d.startsWith("plan with iam ")
                                && d.contains(
                                        "PUNCTUAL_AUTH_*: expected {PUNCTUAL_AUTH_IAM_TENANT=principal, PUNCTUAL_AUTH_MODE=iam}"));
    }

    @Test
    void aMissingAcknowledgementCheckIsReported() throws Exception {
        // The precondition deleted (Terraform refuses a constant condition, so it cannot be replaced by `true`).
        AuthContract a = mutatedAuth(s -> s.replaceAll(
                "(?s)\\n *precondition \\{\\n *condition *= (each\\.key != \"api\" \\|\\| )?var\\.auth != "
                        + "\"none\" \\|\\| var\\.allow_unauthenticated_api\\n.*?\\n *}\\n",
                "\n"));
        assertThat(a.guards()).anyMatch(d -> d.contains("no precondition ties auth = \"none\" to"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "none without allow_unauthenticated_api"))
                .anyMatch(d -> d.startsWith("plan with none without allow_unauthenticated_api")
                        && d.contains("succeeded; it must fail"));
    }

    @Test
    void aMissingAudienceCheckIsReported() throws Exception {
        // Both rules that ask for an audience (an issuer needs one; jwt needs issuer and audience) dropped.
        AuthContract a = mutatedAuth(s -> s.replace("length(var.jwt_audience) > 0", "true"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(a.plans(copy.resolve("plan"), "jwt with an issuer and no audience"))
                .anyMatch(d -> d.startsWith("plan with jwt with an issuer and no audience")
                        && d.contains("succeeded; it must fail"));
    }

    @Test
    void anExamplePassingAVariableTheModuleLacksIsReported() throws Exception {
        AuthContract a =
                mutatedAuth(s -> s.replace("variable \"allow_unauthenticated_api\"", "variable \"allow_public_api\"")
                        .replace("var.allow_unauthenticated_api", "var.allow_public_api"));
        assertThat(a.variables()).anyMatch(d -> d.contains("no variable allow_unauthenticated_api"));
        assertThat(a.example("localstack", Terraform.load(Terraform.MODULE.resolve("examples/localstack"))))
                .anyMatch(d -> d.contains("passes allow_unauthenticated_api, which the module does not declare"));
    }

    @Test
    void aWritableRootOrAnotherUserIsReported() throws Exception {
        HardeningContract h =
                mutatedHardening(s -> s.replace("readonlyRootFilesystem = true", "readonlyRootFilesystem = false")
                        .replace("user = \"0\"", "user = \"185\""));
        assertThat(h.taskDefinition())
                .anyMatch(d -> d.contains(".readonlyRootFilesystem: expected true"))
                .anyMatch(d -> d.contains(".user (root in the container, to give each run a uid of its own): "
                        + "expected 0, found 185"));
    }

    @Test
    void aCapabilityKeptOrANeededOneDroppedOrDropAllIsReported() throws Exception {
        HardeningContract h = mutatedHardening(s -> s.replace("\"NET_RAW\", ", "\"SETUID\", "));
        assertThat(h.taskDefinition())
                .anyMatch(d -> d.contains("capabilities.drop keeps [NET_RAW]"))
                .anyMatch(d -> d.contains("capabilities.drop drops [SETUID], which the executor needs"));
        HardeningContract all = mutatedHardening(s -> s.replaceFirst("drop = \\[[^]]*]", "drop = [\"ALL\"]"));
        assertThat(all.taskDefinition()).anyMatch(d -> d.contains("capabilities.drop is ALL"));
    }

    @Test
    void aMissingUlimitOrAMovedOrHostVolumeIsReported() throws Exception {
        HardeningContract h = mutatedHardening(s -> s.replaceFirst(" *\\{ name = \"nproc\".*\n", "")
                .replace("containerPath = \"/var/lib/punctual\"", "containerPath = \"/data\""));
        assertThat(h.taskDefinition())
                .anyMatch(d -> d.contains("no ulimit nproc"))
                .anyMatch(d -> d.contains("nothing is mounted at /var/lib/punctual"));
        HardeningContract host = mutatedHardening(s ->
                s.replace("    name = \"work\"\n", "    name      = \"work\"\n    host_path = \"/var/punctual\"\n"));
        assertThat(host.taskDefinition()).anyMatch(d -> d.contains("must be a bind mount on the task's own storage"));
    }

    @Test
    void aPrivilegedContainerOrHardeningThatCanBeOverriddenIsReported() throws Exception {
        HardeningContract privileged = mutatedHardening(
                s -> s.replace("      essential = true\n", "      essential = true\n      privileged = true\n"));
        assertThat(privileged.taskDefinition()).anyMatch(d -> d.contains("the container definition sets privileged"));
        HardeningContract first = mutatedHardening(
                s -> s.replace("jsonencode([merge(\n", "jsonencode([merge(\n    local.executor_container_hardening,\n")
                        .replace("    local.executor_container_hardening,\n  )])", "  )])"));
        assertThat(first.taskDefinition()).anyMatch(d -> d.contains("the hardening last"));
    }

    @Test
    void aWorkDirectoryOffTheVolumeIsReportedInTheTaskAndAgainstTheImages() throws Exception {
        HardeningContract h = mutatedHardening(s -> s.replace(
                "PUNCTUAL_WORK_DIR    = \"/var/lib/punctual/work\"", "PUNCTUAL_WORK_DIR    = \"/tmp/punctual\""));
        assertThat(h.environment()).anyMatch(d -> d.contains("PUNCTUAL_WORK_DIR must be under /var/lib/punctual/"));
        assertThat(HardeningContract.image("Dockerfile.jvm", Dockerfile.load("Dockerfile.jvm"), h.directories(), true))
                .anyMatch(d -> d.contains(
                        "PUNCTUAL_WORK_DIR is /var/lib/punctual/work, the ECS task's is " + "/tmp/punctual"));
    }

    @Test
    void anImageRunningAsAnotherUserOrWithoutItsVolumeToolsOrJvmFlagsIsReported() throws Exception {
        String jvm = Files.readString(Dockerfile.DIR.resolve("Dockerfile.jvm"));
        var tf = new HardeningContract(Terraform.load(Terraform.MODULE)).directories();
        assertThat(HardeningContract.image(
                        "jvm",
                        Dockerfile.parse(jvm.replace("\nUSER 0\n", "\nUSER 185\n")
                                .replace("COPY --from=app /app/lib/", "COPY --chown=185 --from=app /app/lib/")),
                        tf,
                        true))
                .anyMatch(d -> d.contains("must run as USER 0 (root in its container), not 185"))
                .anyMatch(d -> d.contains("--chown=185: the application must be root-owned"));
        assertThat(HardeningContract.image(
                        "jvm",
                        Dockerfile.parse(jvm.replace("VOLUME /var/lib/punctual", "")
                                .replace("util-linux ", "")
                                .replace(" -XX:-UsePerfData", "")
                                .replace("ENV PUNCTUAL_SANDBOX=true", "ENV PUNCTUAL_SANDBOX=false")),
                        tf,
                        true))
                .anyMatch(d -> d.contains("no VOLUME /var/lib/punctual"))
                .anyMatch(d -> d.contains("util-linux (setsid, setpriv, prlimit) is not installed"))
                .anyMatch(d -> d.contains("-XX:-UsePerfData"))
                .anyMatch(d -> d.contains("PUNCTUAL_SANDBOX (the image runs as root): expected true, found false"));
        String nativeImage = Files.readString(Dockerfile.DIR.resolve("Dockerfile.native"));
        assertThat(HardeningContract.image(
                        "native",
                        Dockerfile.parse(nativeImage
                                .replace(" -Djava.io.tmpdir=/var/lib/punctual/tmp", "")
                                .replace(
                                        "ENV PUNCTUAL_SANDBOX_DIR=/var/lib/punctual/sandbox",
                                        "ENV PUNCTUAL_SANDBOX_DIR=/tmp/sandbox")),
                        tf,
                        false))
                .anyMatch(d -> d.contains("java.io.tmpdir must be on the volume"))
                .anyMatch(d -> d.contains("PUNCTUAL_SANDBOX_DIR must be under /var/lib/punctual/, not /tmp/sandbox"));
    }

    @Test
    void aMissingEndpointOrAWiderRuleIsReported() throws Exception {
        NetworkContract n = mutatedNetwork(s -> s.replace("    sqs       = \"Interface\"\n", "")
                .replaceFirst("from_port         = 443", "from_port         = 0"));
        assertThat(n.endpoints(NetworkContract.neededEndpoints()))
                .anyMatch(d -> d.contains("the executor needs") && d.contains("sqs=Interface"));
        assertThat(n.egressRules()).anyMatch(d -> d.contains("only HTTPS (tcp 443) may leave the executor's tasks"));
    }

    @Test
    void internetEgressRegardlessOfRunEgressIsReported() throws Exception {
        NetworkContract n = mutatedNetwork(s -> s.replace(
                "count = var.create_executor_service && var.run_egress == \"internet-https\" ? 1 : 0",
                "count = var.create_executor_service ? 1 : 0"));
        assertThat(n.egressRules()).anyMatch(d -> d.contains("an address range is allowed regardless of run_egress"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(n.plans(
                        copy.resolve("plan"),
                        NetworkContract.neededEndpoints(),
                        "the defaults (aws-endpoints, endpoints created)"))
                .anyMatch(d -> d.contains(
                        "egress rules by destination: expected {CIDR=0, PREFIX_LIST=2, SECURITY_GROUP=1}, terraform says "
                                + "{CIDR=1, PREFIX_LIST=2, SECURITY_GROUP=1}"));
    }

    @Test
    void missingNetworkAndEnvironmentGuardsAreReported() throws Exception {
        // Preconditions deleted (Terraform refuses a constant condition), the validation's rule made vacuous.
        NetworkContract n = mutatedNetwork(s -> s.replaceAll(
                        "(?s)\\n *precondition \\{\\n *condition *= "
                                + "(!var\\.create_vpc_endpoints|lookup\\(var\\.extra_environment)[^\\n]*\\n.*?\\n *}\\n",
                        "\n")
                .replace(
                        "[\"PUNCTUAL_WORK_DIR\", \"PUNCTUAL_SANDBOX\", \"PUNCTUAL_SANDBOX_DIR\"]", "[\"PUNCTUAL_X\"]"));
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(n.plans(
                        copy.resolve("plan"),
                        NetworkContract.neededEndpoints(),
                        "endpoints without route tables",
                        "PUNCTUAL_SANDBOX_NETWORK none on Fargate",
                        "PUNCTUAL_WORK_DIR in extra_environment"))
                .anyMatch(d -> d.startsWith("plan with endpoints without route tables") && d.contains("must fail"))
                .anyMatch(d -> d.startsWith("plan with PUNCTUAL_SANDBOX_NETWORK none") && d.contains("must fail"))
                .anyMatch(d -> d.startsWith("plan with PUNCTUAL_WORK_DIR in") && d.contains("must fail"));
    }

    @Test
    void aLambdaWithAnotherComponentsRoleSettingsOrAuthenticationIsReported() throws Exception {
        Terraform roles = mutatedModule(s -> s.replace(
                "role          = aws_iam_role.this[each.key].arn",
                "role          = aws_iam_role.this[\"sweeper\"].arn"));
        assertThat(new WiringContract(roles).lambdas())
                .anyMatch(d -> d.contains("is not the role named ${var.name_prefix}-api"));
        Terraform settings = mutatedModule(s -> s.replace(
                        "memory_size          = var.api_memory_size", "memory_size          = var.sweeper_memory_size")
                .replace(
                        "environment          = local.lambda_environment",
                        "environment          = merge(local.lambda_environment, local.auth_environment)"));
        assertThat(new WiringContract(settings).lambdaSettings(new Contract(settings)))
                .anyMatch(d -> d.contains(
                        "memory_size: expected ${var.api_memory_size}, terraform says " + "${var.sweeper_memory_size}"))
                .anyMatch(d -> d.contains("is told an authentication mode, which only the api uses"));
    }

    @Test
    void aLogsPolicyBeyondItsOwnLogGroupIsReported() throws Exception {
        Terraform t = mutatedModule(s -> s.replace(
                "resources = [\"${aws_cloudwatch_log_group.lambda[each.key].arn}:*\"]",
                "resources = [\"arn:${local.partition}:logs:*:*:*\"]"));
        assertThat(new WiringContract(t).lambdas())
                .anyMatch(
                        d -> d.contains("letting it write to aws_cloudwatch_log_group.lambda[\"api\"] only, found []"));
    }

    @Test
    void permissionsAttachedToAnotherComponentsRoleAreReported() throws Exception {
        Terraform t = mutatedModule(s -> s.replace(
                        "policy             = data.aws_iam_policy_document.api.json",
                        "policy             = data.aws_iam_policy_document.sweeper.json")
                .replace("[\"api\", \"executor-task\"]", "[\"api\", \"sweeper\"]"));
        assertThat(new WiringContract(t).attachments())
                .anyMatch(d ->
                        d.contains("roles with data.aws_iam_policy_document.api: expected [${var.name_prefix}-api], "
                                + "terraform says []"))
                .anyMatch(d -> d.startsWith("roles with data.aws_iam_policy_document.artifacts_kms[0]"));
    }

    @Test
    void aMissingOrMisdirectedMovedBlockIsReported() throws Exception {
        Terraform t = mutatedModule(
                s -> s.replaceFirst("(?s)moved \\{\\n  from = aws_iam_role\\.executor_execution\\[0]\\n.*?}\\n", "")
                        .replace(
                                "to   = aws_iam_role_policy.artifacts_kms[\"executor-task\"]",
                                "to   = aws_iam_role_policy.artifacts_kms[\"executor\"]"));
        assertThat(PreviousLayout.declaredOrMoved(t))
                .contains("aws_iam_role.executor_execution[0] of the previous layout is neither declared nor moved")
                .contains("aws_iam_role_policy.executor_kms[0] of the previous layout is moved to "
                        + "aws_iam_role_policy.artifacts_kms[\"executor\"], which the module does not declare");
        assumeTrue(
                ProviderMockTest.mirror().isPresent(), "no local mirror of the hashicorp/aws provider: plan skipped");
        assertThat(PreviousLayout.plan(copy, ProviderMockTest.mirror().orElseThrow()))
                .anyMatch(
                        d -> d.startsWith("aws_iam_role.executor_execution[0] of the previous layout would be delete"))
                .anyMatch(d ->
                        d.startsWith("aws_iam_role_policy.executor_kms[0] of the previous layout would be delete"));
    }

    @Test
    void anUndescribedVariableOrOutputIsReported() throws Exception {
        Terraform t = mutatedModule(
                s -> s.replace("  description = \"Reserved concurrency of the api Lambda; -1 for none.\"\n", "")
                        .replace("  description = \"Name of the sweeper Lambda.\"\n", ""));
        assertThat(WiringContract.documented("copy", t))
                .contains("copy variable api_reserved_concurrency has no description")
                .contains("copy output sweeper_function_name has no description");
    }

    /** What the executor's code is derived to need. */
    private static Set<CodeActions.Permission> executorNeeds() throws Exception {
        return new CodeActions()
                .derive(
                        Components.ALL.get(2).entryClasses(),
                        Components.ALL.get(2).entryMethods());
    }

    private HardeningContract mutatedHardening(UnaryOperator<String> edit) throws Exception {
        return new HardeningContract(mutatedModule(edit));
    }

    private NetworkContract mutatedNetwork(UnaryOperator<String> edit) throws Exception {
        return new NetworkContract(mutatedModule(edit));
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
