package dev.punctual.infra;

import static org.assertj.core.api.Assertions.allOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract checks can fail: on a copy of infra/terraform with one deliberate drift, the matching check
 * reports it. (A check that passes on anything would prove nothing.)
 */
class DriftDetectionTest {
    @TempDir
    Path copy;

    /** A check of a mutated copy of the module; {@code dir} is where an offline plan may work. */
    @FunctionalInterface
    interface Check {
        List<String> on(Terraform module, Path dir) throws Exception;
    }

    /**
     * One drift: the edit made to every file of the copy, the check that must report it, what it must report, and
     * whether the check plans with Terraform (skipped where terraform is not installed).
     */
    record Drift(
            String name, UnaryOperator<String> edit, Check check, boolean plans, List<Condition<String>> reported) {
        @Override
        public String toString() {
            return name;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drifts")
    void eachDriftIsReported(Drift drift) throws Exception {
        Terraform module = mutatedModule(drift.edit());
        if (drift.plans()) {
            assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        }
        List<String> found = drift.check().on(module, copy.resolve("plan"));
        for (Condition<String> reported : drift.reported()) {
            assertThat(found).haveAtLeastOne(reported);
        }
    }

    // Edits that more than one check must report.

    private static String fewerReceivesAndAnUnknownVariable(String s) {
        return s.replace("maxReceiveCount     = 25", "maxReceiveCount     = 3")
                .replace("maxReceiveCount = 25", "maxReceiveCount = 3")
                .replace("PUNCTUAL_PREFIX", "PUNCTUAL_PREFX");
    }

    private static String authModeNotFromVarAuth(String s) {
        return s.replace("PUNCTUAL_AUTH_MODE = var.auth", "PUNCTUAL_AUTH_MODE = \"none\"");
    }

    /** The precondition deleted (Terraform refuses a constant condition, so it cannot be replaced by `true`). */
    private static String noAcknowledgementCheck(String s) {
        return s.replaceAll(
                "(?s)\\n *precondition \\{\\n *condition *= (each\\.key != \"api\" \\|\\| )?var\\.auth != "
                        + "\"none\" \\|\\| var\\.allow_unauthenticated_api\\n.*?\\n *}\\n",
                "\n");
    }

    private static String aVariableRenamed(String s) {
        return s.replace("variable \"allow_unauthenticated_api\"", "variable \"allow_public_api\"")
                .replace("var.allow_unauthenticated_api", "var.allow_public_api");
    }

    private static String workDirectoryOffTheVolume(String s) {
        return s.replace(
                "PUNCTUAL_WORK_DIR    = \"/var/lib/punctual/work\"", "PUNCTUAL_WORK_DIR    = \"/tmp/punctual\"");
    }

    private static String noSqsEndpointAndAWiderRule(String s) {
        return s.replace("    sqs       = \"Interface\"\n", "")
                .replaceFirst("from_port         = 443", "from_port         = 0");
    }

    private static String aLaneLeftOut(String s) {
        return s.replace("    low    = \"-low\"\n", "");
    }

    /** The executor's run queue statement and the sweeper's dead-letter one narrowed to the normal lane. */
    private static String theNormalLanesQueuesOnly(String s) {
        return s.replace(
                        "\"sqs:GetQueueUrl\", \"sqs:SendMessage\"], resources = values(aws_sqs_queue.runs)[*].arn",
                        "\"sqs:GetQueueUrl\", \"sqs:SendMessage\"], resources = [aws_sqs_queue.runs[\"normal\"].arn]")
                .replace(
                        "resources = values(aws_sqs_queue.dlq)[*].arn",
                        "resources = [aws_sqs_queue.dlq[\"normal\"].arn]");
    }

    private static String aQueueWithoutItsLane(String s) {
        return s.replace("\"lane\", lane, ", "");
    }

    private static String internetEgressRegardless(String s) {
        return s.replace(
                "count = var.create_executor_service && var.run_egress == \"internet-https\" ? 1 : 0",
                "count = var.create_executor_service ? 1 : 0");
    }

    static Stream<Drift> drifts() {
        return Stream.of(
                reported(
                        "a renamed table",
                        s -> s.replace("\n    runs = {\n", "\n    run-items = {\n"),
                        (t, dir) -> new Contract(t).tables(),
                        mentioning("no aws_dynamodb_table named ${var.name_prefix}-runs")),
                reported(
                        "a dropped permission",
                        s -> s.replaceFirst("\"sqs:ChangeMessageVisibility\",?", ""),
                        (t, dir) -> new Contract(t).permissions(EXECUTOR.policyDocument(), executorNeeds()),
                        mentioning("lacks sqs:ChangeMessageVisibility")),
                reported(
                        // A query of the table itself is not one of its indexes: the sweeper's look for a job's
                        // last success (a dead-man check) reads the runs table, its sweep the byDue index.
                        "a query allowed on the indexes only",
                        s -> s.replace(
                                "\"dynamodb:UpdateItem\", \"dynamodb:DeleteItem\", \"dynamodb:Query\"], resources = "
                                        + "[aws_dynamodb_table.this[\"runs\"].arn] },\n      # The sweep",
                                "\"dynamodb:UpdateItem\", \"dynamodb:DeleteItem\"], resources = "
                                        + "[aws_dynamodb_table.this[\"runs\"].arn] },\n      # The sweep"),
                        (t, dir) -> new Contract(t).permissions(SWEEPER.policyDocument(), sweeperNeeds()),
                        mentioning("lacks dynamodb:Query on table:runs (")),
                reported(
                        // The executor's statement (the sweeper's dead-letter statement also allows ReceiveMessage).
                        "an extra permission",
                        s -> s.replaceFirst(
                                "\"sqs:ReceiveMessage\", \"sqs:DeleteMessage\", \"sqs:Change",
                                "\"sqs:ReceiveMessage\", \"sqs:PurgeQueue\", \"sqs:DeleteMessage\", \"sqs:Change"),
                        (t, dir) -> new Contract(t).permissions(EXECUTOR.policyDocument(), executorNeeds()),
                        mentioning("sqs:PurgeQueue")),
                reported(
                        "a wrong maxReceiveCount",
                        DriftDetectionTest::fewerReceivesAndAnUnknownVariable,
                        (t, dir) -> new Contract(t).queues(),
                        mentioning("maxReceiveCount")),
                reported(
                        "a lane left out",
                        DriftDetectionTest::aLaneLeftOut,
                        (t, dir) -> new Contract(t).queues(),
                        mentioning("queues ${var.name_prefix}-runs-low and "
                                + "${var.name_prefix}-runs-low-dlq must both exist")),
                reported(
                        "a lane left out, of the lanes",
                        DriftDetectionTest::aLaneLeftOut,
                        (t, dir) -> new Contract(t).lanes(),
                        mentioning("lanes and their queue suffixes", "code says {high=-high, low=-low, normal=}")),
                reported(
                        "a lane left out, of the executor's permissions",
                        DriftDetectionTest::aLaneLeftOut,
                        (t, dir) -> new Contract(t).permissions(EXECUTOR.policyDocument(), executorNeeds()),
                        mentioning("lacks sqs:ReceiveMessage on queue:runs-low")),
                reported(
                        "the executor allowed on the normal lane's queue only",
                        DriftDetectionTest::theNormalLanesQueuesOnly,
                        (t, dir) -> new Contract(t).permissions(EXECUTOR.policyDocument(), executorNeeds()),
                        mentioning("lacks sqs:ReceiveMessage on queue:runs-high"),
                        mentioning("lacks sqs:ChangeMessageVisibility on queue:runs-low")),
                reported(
                        "the sweeper allowed on the normal lane's dead-letter queue only",
                        DriftDetectionTest::theNormalLanesQueuesOnly,
                        (t, dir) -> new Contract(t).permissions(SWEEPER.policyDocument(), sweeperNeeds()),
                        mentioning("lacks sqs:ReceiveMessage on queue:runs-high-dlq"),
                        mentioning("lacks sqs:DeleteMessage on queue:runs-low-dlq")),
                reported(
                        "a lane redriving to another's dead-letter queue, which takes every lane's",
                        s -> s.replace(
                                        "deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn",
                                        "deadLetterTargetArn = aws_sqs_queue.dlq[\"normal\"].arn")
                                .replace(
                                        "sourceQueueArns   = [aws_sqs_queue.runs[each.key].arn]",
                                        "sourceQueueArns   = values(aws_sqs_queue.runs)[*].arn"),
                        (t, dir) -> new Contract(t).queues(),
                        mentioning("queue punctual-runs-high must redrive to punctual-runs-high-dlq"),
                        mentioning("aws_sqs_queue_redrive_allow_policy.dlq[\"low\"] sourceQueueArns: "
                                + "code says aws_sqs_queue.runs[\"low\"].arn")),
                reported(
                        "a lane without its dead-letter alarm, another not saying its lane",
                        s -> s.replaceFirst("(?s)\n    dlq_not_empty_low = \\{\n.*?\n    }\n", "\n")
                                .replace("A high-lane run message has waited", "A run message has waited"),
                        (t, dir) -> new Contract(t).laneAlarms(),
                        mentioning("the low lane's ApproximateNumberOfMessagesVisible alarm on "
                                + "aws_sqs_queue.dlq[\"low\"]: expected one, found []"),
                        mentioning(
                                "the high lane's ApproximateAgeOfOldestMessage alarm",
                                "its description does not say the lane")),
                reported(
                        "the queue URL of another lane",
                        s -> s.replace(
                                "PUNCTUAL_QUEUE_URL = aws_sqs_queue.runs[\"normal\"].url",
                                "PUNCTUAL_QUEUE_URL = aws_sqs_queue.runs[\"high\"].url"),
                        (t, dir) -> new Contract(t).queueUrl(Components.environments(t)),
                        mentioning("executor PUNCTUAL_QUEUE_URL", "aws_sqs_queue.runs[\"high\"].url")),
                // (A queue metric without its lane is what the code publishes too, every lane together: the planned
                // check below finds the dashboard missing the lanes' own lines.)
                reported(
                        "a metric graphed with a dimension the code does not publish",
                        s -> s.replaceFirst(
                                "\"punctual.start.lateness\", \"Prefix\", var.name_prefix,",
                                "\"punctual.start.lateness\", \"Prefix\", var.name_prefix, \"executor\", \"x\","),
                        (t, dir) -> new MetricsContract(t).dimensions(),
                        mentioning(
                                "dashboard.tf names punctual.start.lateness with the dimensions [Prefix, executor]")),
                planned(
                        "a queue metric without its lane, planned",
                        DriftDetectionTest::aQueueWithoutItsLane,
                        (t, dir) -> new MetricsContract(t).queueWidgets(dir),
                        mentioning("the dashboard graphs punctual.queue.messages for (lane state) [null delayed")),
                reported(
                        "an unknown variable",
                        DriftDetectionTest::fewerReceivesAndAnUnknownVariable,
                        (t, dir) -> new Contract(t).environment(Components.environments(t)),
                        mentioning("PUNCTUAL_PREFX")),
                reported(
                        "a route without authorization",
                        s -> s.replace("local.route_authorization_types[var.auth]", "\"NONE\""),
                        (t, dir) -> new AuthContract(t).routes(),
                        mentioning("authorization_type is NONE in every mode")),
                reported(
                        "a route open under none without the acknowledgement",
                        s -> s.replaceFirst(
                                "none = var.allow_unauthenticated_api \\? \"NONE\" : \"AWS_IAM\"", "none = \"NONE\""),
                        (t, dir) -> new AuthContract(t).routes(),
                        mentioning(".none is NONE without var.allow_unauthenticated_api")),
                reported(
                        "a public route beyond the dashboard's files",
                        s -> s.replace("\"GET /ui/{proxy+}\"", "\"GET /{proxy+}\""),
                        (t, dir) -> new AuthContract(t).routes(),
                        mentioning("routes GET /{proxy+} without authorization")),
                reported(
                        "a JWT route without its authorizer",
                        s -> s.replaceAll(" *authorizer_id += .*\n", ""),
                        (t, dir) -> new AuthContract(t).routes(),
                        mentioning("may be JWT but has no authorizer_id")),
                reported(
                        "a public function URL",
                        s -> s.replace("local.function_url_authorization_types[var.auth]", "\"NONE\""),
                        (t, dir) -> new AuthContract(t).functionUrls(),
                        mentioning("aws_lambda_function_url.api: authorization_type is NONE")),
                reported(
                        "a default auth of none",
                        s -> s.replace("default     = \"jwt\"", "default     = \"none\""),
                        (t, dir) -> new AuthContract(t).variables(),
                        mentioning("variable auth: default: expected jwt, terraform says none")),
                reported(
                        "an auth mode not taken from var.auth",
                        DriftDetectionTest::authModeNotFromVarAuth,
                        (t, dir) -> new AuthContract(t).apiEnvironment(),
                        mentioning("PUNCTUAL_AUTH_MODE to \"none\", not var.auth")),
                planned(
                        "an auth mode not taken from var.auth, planned",
                        DriftDetectionTest::authModeNotFromVarAuth,
                        (t, dir) -> new AuthContract(t).plans(dir, "iam"),
                        allOf(
                                startingWith("plan with iam "),
                                mentioning("PUNCTUAL_AUTH_*: expected "
                                        + "{PUNCTUAL_AUTH_IAM_TENANT=principal, PUNCTUAL_AUTH_MODE=iam}"))),
                reported(
                        "a missing acknowledgement check",
                        DriftDetectionTest::noAcknowledgementCheck,
                        (t, dir) -> new AuthContract(t).guards(),
                        mentioning("no precondition ties auth = \"none\" to")),
                planned(
                        "a missing acknowledgement check, planned",
                        DriftDetectionTest::noAcknowledgementCheck,
                        (t, dir) -> new AuthContract(t).plans(dir, "none without allow_unauthenticated_api"),
                        mustFail("none without allow_unauthenticated_api")),
                planned(
                        // Both rules that ask for an audience (an issuer needs one; jwt needs issuer and audience).
                        "a missing audience check, planned",
                        s -> s.replace("length(var.jwt_audience) > 0", "true"),
                        (t, dir) -> new AuthContract(t).plans(dir, "jwt with an issuer and no audience"),
                        mustFail("jwt with an issuer and no audience")),
                reported(
                        "a variable the module lacks",
                        DriftDetectionTest::aVariableRenamed,
                        (t, dir) -> new AuthContract(t).variables(),
                        mentioning("no variable allow_unauthenticated_api")),
                reported(
                        "an example passing a variable the module lacks",
                        DriftDetectionTest::aVariableRenamed,
                        (t, dir) -> new AuthContract(t)
                                .example("localstack", Terraform.load(Terraform.MODULE.resolve("examples/localstack"))),
                        mentioning("passes allow_unauthenticated_api, which the module does not declare")),
                reported(
                        "a writable root or another user",
                        s -> s.replace("readonlyRootFilesystem = true", "readonlyRootFilesystem = false")
                                .replace("user = \"0\"", "user = \"185\""),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning(".readonlyRootFilesystem: expected true"),
                        mentioning(".user (root in the container, to give each run a uid of its own): "
                                + "expected 0, found 185")),
                reported(
                        "no health check",
                        s -> s.replace("healthCheck = local.executor_health_check", ""),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("the executor's container has no healthCheck")),
                reported(
                        "a health check on another file, or too impatient",
                        s -> s.replace("/var/lib/punctual/work/healthy", "/tmp/healthy")
                                .replace("-lt 45", "-lt 15"),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("does not read /var/lib/punctual/work/healthy"),
                        mentioning("must allow at least 30 s")),
                reported(
                        "a capability kept or a needed one dropped",
                        s -> s.replace("\"NET_RAW\", ", "\"SETUID\", "),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("capabilities.drop keeps [NET_RAW]"),
                        mentioning("capabilities.drop drops [SETUID], which the executor needs")),
                reported(
                        "drop ALL",
                        s -> s.replaceFirst("drop = \\[[^]]*]", "drop = [\"ALL\"]"),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("capabilities.drop is ALL")),
                reported(
                        "a missing ulimit or a moved volume",
                        s -> s.replaceFirst(" *\\{ name = \"nproc\".*\n", "")
                                .replace("containerPath = \"/var/lib/punctual\"", "containerPath = \"/data\""),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("no ulimit nproc"),
                        mentioning("nothing is mounted at /var/lib/punctual")),
                reported(
                        "a host volume",
                        s -> s.replace(
                                "    name = \"work\"\n",
                                "    name      = \"work\"\n    host_path = \"/var/punctual\"\n"),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("must be a bind mount on the task's own storage")),
                reported(
                        "a privileged container",
                        s -> s.replace("      essential = true\n", "      essential = true\n      privileged = true\n"),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("the container definition sets privileged")),
                reported(
                        "hardening that can be overridden",
                        s -> s.replace(
                                        "jsonencode([merge(\n",
                                        "jsonencode([merge(\n    local.executor_container_hardening,\n")
                                .replace("    local.executor_container_hardening,\n  )])", "  )])"),
                        (t, dir) -> new HardeningContract(t).taskDefinition(),
                        mentioning("the hardening last")),
                reported(
                        "a work directory off the volume, in the task",
                        DriftDetectionTest::workDirectoryOffTheVolume,
                        (t, dir) -> new HardeningContract(t).environment(),
                        mentioning("PUNCTUAL_WORK_DIR must be under /var/lib/punctual/")),
                reported(
                        "a work directory off the volume, against the images",
                        DriftDetectionTest::workDirectoryOffTheVolume,
                        (t, dir) -> HardeningContract.image(
                                "Dockerfile.jvm",
                                Dockerfile.load("Dockerfile.jvm"),
                                new HardeningContract(t).directories(),
                                true),
                        mentioning("PUNCTUAL_WORK_DIR is /var/lib/punctual/work, the ECS task's is /tmp/punctual")),
                reported(
                        "a missing endpoint",
                        DriftDetectionTest::noSqsEndpointAndAWiderRule,
                        (t, dir) -> new NetworkContract(t).endpoints(NetworkContract.neededEndpoints()),
                        mentioning("the executor needs", "sqs=Interface")),
                reported(
                        "a wider rule",
                        DriftDetectionTest::noSqsEndpointAndAWiderRule,
                        (t, dir) -> new NetworkContract(t).egressRules(),
                        mentioning("only HTTPS (tcp 443) may leave the executor's tasks")),
                reported(
                        "internet egress regardless of run_egress",
                        DriftDetectionTest::internetEgressRegardless,
                        (t, dir) -> new NetworkContract(t).egressRules(),
                        mentioning("an address range is allowed regardless of run_egress")),
                planned(
                        "internet egress regardless of run_egress, planned",
                        DriftDetectionTest::internetEgressRegardless,
                        (t, dir) -> new NetworkContract(t)
                                .plans(
                                        dir,
                                        NetworkContract.neededEndpoints(),
                                        "the defaults (aws-endpoints, endpoints created)"),
                        mentioning("egress rules by destination: expected {CIDR=0, PREFIX_LIST=2, SECURITY_GROUP=1}, "
                                + "terraform says {CIDR=1, PREFIX_LIST=2, SECURITY_GROUP=1}")),
                planned(
                        // Preconditions deleted (Terraform refuses a constant condition), the validation made vacuous.
                        "missing network and environment guards, planned",
                        s -> s.replaceAll(
                                        "(?s)\\n *precondition \\{\\n *condition *= "
                                                + "(!var\\.create_vpc_endpoints|lookup\\(var\\.extra_environment)"
                                                + "[^\\n]*\\n.*?\\n *}\\n",
                                        "\n")
                                .replace(
                                        "[\"PUNCTUAL_WORK_DIR\", \"PUNCTUAL_SANDBOX\", \"PUNCTUAL_SANDBOX_DIR\"]",
                                        "[\"PUNCTUAL_X\"]"),
                        (t, dir) -> new NetworkContract(t)
                                .plans(
                                        dir,
                                        NetworkContract.neededEndpoints(),
                                        "endpoints without route tables",
                                        "PUNCTUAL_SANDBOX_NETWORK none on Fargate",
                                        "PUNCTUAL_SANDBOX_DISK filesystem on Fargate",
                                        "PUNCTUAL_WORK_DIR in extra_environment"),
                        mustFail("endpoints without route tables"),
                        mustFail("PUNCTUAL_SANDBOX_NETWORK none"),
                        mustFail("PUNCTUAL_SANDBOX_DISK filesystem"),
                        mustFail("PUNCTUAL_WORK_DIR in")),
                reported(
                        "a Lambda with another component's role",
                        s -> s.replace(
                                "role          = aws_iam_role.this[each.key].arn",
                                "role          = aws_iam_role.this[\"sweeper\"].arn"),
                        (t, dir) -> new WiringContract(t).lambdas(),
                        mentioning("is not the role named ${var.name_prefix}-api")),
                reported(
                        "a Lambda with another component's settings or authentication",
                        s -> s.replace(
                                        "memory_size          = var.api_memory_size",
                                        "memory_size          = var.sweeper_memory_size")
                                .replace(
                                        "environment = merge(local.lambda_environment, local.run_events_environment, {",
                                        "environment = merge(local.lambda_environment, local.auth_environment, {"),
                        (t, dir) -> new WiringContract(t).lambdaSettings(new Contract(t)),
                        mentioning("memory_size: expected ${var.api_memory_size}, terraform says "
                                + "${var.sweeper_memory_size}"),
                        mentioning("is told an authentication mode, which only the api uses")),
                reported(
                        "a logs policy beyond its own log group",
                        s -> s.replace(
                                "resources = [\"${aws_cloudwatch_log_group.lambda[each.key].arn}:*\"]",
                                "resources = [\"arn:${local.partition}:logs:*:*:*\"]"),
                        (t, dir) -> new WiringContract(t).lambdas(),
                        mentioning("letting it write to aws_cloudwatch_log_group.lambda[\"api\"] only, found []")),
                reported(
                        "permissions attached to another component's role",
                        s -> s.replace(
                                        "policy             = data.aws_iam_policy_document.component[\"api\"].json",
                                        "policy             = data.aws_iam_policy_document.component[\"sweeper\"].json")
                                .replace("[\"api\", \"executor-task\"]", "[\"api\", \"sweeper\"]"),
                        (t, dir) -> new WiringContract(t).attachments(),
                        mentioning("roles with data.aws_iam_policy_document.component[\"api\"]: "
                                + "expected [${var.name_prefix}-api], terraform says []"),
                        startingWith("roles with data.aws_iam_policy_document.artifacts_kms[0]")),
                reported(
                        "an undescribed variable or output",
                        s -> s.replace("  description = \"Reserved concurrency of the api Lambda; -1 for none.\"\n", "")
                                .replace("  description = \"Name of the sweeper Lambda.\"\n", ""),
                        (t, dir) -> WiringContract.documented("copy", t),
                        exactly("copy variable api_reserved_concurrency has no description"),
                        exactly("copy output sweeper_function_name has no description")));
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

    private static final Components.Component EXECUTOR = Components.ALL.get(2);

    /** What the executor's code is derived to need. */
    private static final Components.Component SWEEPER = Components.ALL.stream()
            .filter(c -> c.name().equals("sweeper"))
            .findFirst()
            .orElseThrow();

    private static Set<CodeActions.Permission> sweeperNeeds() throws Exception {
        return new CodeActions().derive(SWEEPER.entryClasses(), SWEEPER.entryMethods());
    }

    private static Set<CodeActions.Permission> executorNeeds() throws Exception {
        return new CodeActions().derive(EXECUTOR.entryClasses(), EXECUTOR.entryMethods());
    }

    @SafeVarargs
    private static Drift reported(String name, UnaryOperator<String> edit, Check check, Condition<String>... found) {
        return new Drift(name, edit, check, false, List.of(found));
    }

    @SafeVarargs
    private static Drift planned(String name, UnaryOperator<String> edit, Check check, Condition<String>... found) {
        return new Drift(name, edit, check, true, List.of(found));
    }

    /** A reported drift that mentions every one of these. */
    private static Condition<String> mentioning(String... parts) {
        return new Condition<>(
                d -> Arrays.stream(parts).allMatch(d::contains), "a drift mentioning %s", Arrays.toString(parts));
    }

    private static Condition<String> startingWith(String prefix) {
        return new Condition<>(d -> d.startsWith(prefix), "a drift starting with %s", prefix);
    }

    private static Condition<String> exactly(String drift) {
        return new Condition<>(drift::equals, "the drift %s", drift);
    }

    /** The offline plan of that case succeeded, where Terraform must refuse it. */
    private static Condition<String> mustFail(String planCase) {
        return allOf(startingWith("plan with " + planCase), mentioning("succeeded; it must fail"));
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
