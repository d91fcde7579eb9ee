package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.api.dashboard.Dashboard;
import dev.punctual.core.config.Settings;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * infra/terraform against the code: names, keys, indexes and TTL of the tables; the queue, its redrive and its
 * visibility against the lease; each component's environment, handler and runtime; the API routes; the sweep rate;
 * least-privilege IAM derived from the compiled adapters; alarms. Fails loudly, listing every drift.
 */
class InfraContractTest {
    static Terraform tf;
    static Contract contract;

    @BeforeAll
    static void load() throws Exception {
        tf = Terraform.load(Terraform.MODULE);
        contract = new Contract(tf);
    }

    @Test
    void tablesMatchTheCodesDefinition() {
        assertThat(contract.tables()).isEmpty();
    }

    @Test
    void queueRedrivesToItsDeadLetterQueueAndHidesMessagesForOneLease() {
        assertThat(contract.queues()).isEmpty();
    }

    @Test
    void everyComponentGetsTheVariablesTheCodeReadsAndNoOthers() {
        assertThat(contract.environment(Components.environments(tf))).isEmpty();
    }

    @Test
    void eachRoleAllowsExactlyTheActionsItsCodeCalls() throws Exception {
        List<String> drift = new ArrayList<>();
        for (var c : Components.ALL) {
            Set<CodeActions.Permission> needed = new CodeActions().derive(c.entryClasses(), c.entryMethods());
            assertThat(needed).as("%s derives some AWS actions", c.name()).isNotEmpty();
            drift.addAll(contract.permissions(c.policyDocument(), needed));
        }
        assertThat(drift).isEmpty();
    }

    @Test
    void noPolicyGrantsAWildcardAction() {
        assertThat(contract.noWildcardActions()).isEmpty();
    }

    @Test
    void theHttpApiRoutesEveryEndpointTheApiServesAndNothingElse() throws Exception {
        Set<String> terraform = new TreeSet<>();
        tf.resources("aws_apigatewayv2_route").forEach((name, route) -> {
            if (!name.equals(AuthContract.DASHBOARD)) {
                terraform.addAll(routeKeys(route));
            }
        });
        Set<String> served = new TreeSet<>(ApiRoutes.routes());
        // The OpenAPI document is a Vert.x route, not a resource: routed behind the same authorizer.
        served.add(ApiRoutes.documentRoute());
        assertThat(terraform).isEqualTo(served);
    }

    @Test
    void theDashboardsRoutesLeadToFilesTheApiModuleHas() throws Exception {
        JsonNode dashboard = tf.resources("aws_apigatewayv2_route").get(AuthContract.DASHBOARD);
        assertThat(dashboard).as("aws_apigatewayv2_route.dashboard").isNotNull();
        assertThat(routeKeys(dashboard)).containsExactlyInAnyOrder("GET /ui", "GET /ui/{proxy+}");
        // What Quarkus serves at /ui/ (from the api module's jar, in the Lambda's package as on the local runner).
        assertThat(Dashboard.class.getResource("/META-INF/resources/ui/index.html"))
                .isNotNull();
        assertThat(Dashboard.PATH).isEqualTo("/ui/");
    }

    private Set<String> routeKeys(JsonNode route) {
        String key = route.path("route_key").asText();
        return key.startsWith("${each.") ? new TreeSet<>(Components.forEachValues(tf, route)) : Set.of(key);
    }

    @Test
    void lambdasUseQuarkusHandlerAndTheJavaRuntimeTheBuildTargets() throws Exception {
        String handler = QuarkusStreamHandler.class.getName() + "::handleRequest";
        int release = Components.classFileRelease(Settings.class);
        for (String name : Components.LAMBDAS) {
            JsonNode fn = Components.lambdaFunction(tf, name).block();
            assertThat(fn.path("handler").asText()).as(name + " handler").contains(handler);
            assertThat(fn.path("runtime").asText())
                    .as(name + " runtime")
                    .contains("java" + release)
                    .contains("provided.al2023");
        }
    }

    @Test
    void eventBridgeFiresTheSweeperAtTheSweepPeriod() {
        long minutes = Settings.DEFAULT_SWEEP_PERIOD.toMinutes();
        String rate = "rate(" + minutes + (minutes == 1 ? " minute)" : " minutes)");
        assertThat(tf.resources("aws_cloudwatch_event_rule").values())
                .extracting(r -> r.path("schedule_expression").asText())
                .contains(rate);
    }

    @Test
    void alarmsWatchDeadLettersSweeperErrorsQueueAgeAndLateness() {
        List<JsonNode> alarms = tf.instances("aws_cloudwatch_metric_alarm").stream()
                .map(Terraform.Instance::block)
                .toList();
        Set<String> metrics = new TreeSet<>();
        for (JsonNode alarm : alarms) {
            metrics.add(alarm.path("namespace").asText() + "/"
                    + alarm.path("metric_name").asText());
        }
        assertThat(metrics)
                .contains(
                        "AWS/SQS/ApproximateNumberOfMessagesVisible",
                        "AWS/Lambda/Errors",
                        "AWS/SQS/ApproximateAgeOfOldestMessage",
                        EmfMeterRegistry.NAMESPACE + "/" + Meters.START_LATENESS);
        assertThat(alarms.stream()
                        .filter(a -> a.path("metric_name").asText().equals("ApproximateNumberOfMessagesVisible"))
                        .map(JsonNode::toString))
                .as("the DLQ depth alarm watches the dead-letter queue")
                .anyMatch(s -> s.contains("aws_sqs_queue."
                        + contract.queue(new dev.punctual.core.infra.Resources(Settings.defaults())
                                        .runQueue()
                                        .deadLetterName())
                                .orElseThrow()
                                .getKey()
                        + "."));
    }
}
