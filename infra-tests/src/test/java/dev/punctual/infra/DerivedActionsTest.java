package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Deployment;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import dev.punctual.infra.CodeActions.Permission;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The derivation itself, on facts about the code that are plain to see: the executor receives and deletes
 * messages, sends only to re-queue a run waiting on an overlapping one, and never queries or creates items; the
 * sweeper never touches S3, samples each lane's depth and drains each lane's dead-letter queue; the API presigns
 * uploads (PutObject) and sends runs due soon. Every lane's queue is used as the normal one always was (the code
 * receives from all at once, and sends each run to its own). If the derivation went blind (e.g. stopped following
 * lambdas, or saw only one lane), these would fail before the IAM check could pass vacuously.
 */
class DerivedActionsTest {
    /**
     * What a component's code is plainly seen to call on the lanes' queues and elsewhere, and what it plainly never
     * calls.
     */
    record Expected(String component, Set<Permission> onLanes, Set<Permission> calls, Condition<Permission> never) {
        @Override
        public String toString() {
            return component;
        }
    }

    static Stream<Expected> components() {
        return Stream.of(
                new Expected(
                        "executor",
                        onEveryLane(
                                "sqs:ReceiveMessage",
                                "sqs:DeleteMessage",
                                "sqs:ChangeMessageVisibility",
                                "sqs:SendMessage"),
                        permissions(
                                // The overlap check on the job's active run (a claim under overlap allow is an
                                // update of the run alone, and reads the job).
                                "dynamodb:ConditionCheckItem table:runs",
                                "dynamodb:GetItem table:jobs",
                                // The strong reads of the jobs of runs claimed at once, shared (SharedJobReads).
                                "dynamodb:BatchGetItem table:jobs",
                                "dynamodb:UpdateItem table:runs",
                                "s3:GetObject bucket:artifacts",
                                "s3:PutObject bucket:artifacts",
                                "events:PutEvents bus:runs"),
                        // It ships a running attempt's output in chunks and lists or deletes none of them: the
                        // bucket's lifecycle rule expires them with the logs.
                        new Condition<>(
                                x -> x.action().equals("dynamodb:Query")
                                        || x.action().equals("dynamodb:PutItem")
                                        || x.action().equals("s3:ListBucket")
                                        || x.action().equals("s3:DeleteObject"),
                                "a query, a new item, or listing or deleting objects")),
                new Expected(
                        "sweeper",
                        union(
                                onEveryLane("sqs:SendMessage", "sqs:GetQueueAttributes"),
                                onEveryLanesDeadLetterQueue("sqs:ReceiveMessage", "sqs:DeleteMessage")),
                        permissions(
                                // The sweep reads the byDue index; a dead-man check, the job's runs themselves.
                                "dynamodb:Query table:runs/index",
                                "dynamodb:Query table:runs",
                                "dynamodb:UpdateItem table:sweeps",
                                "dynamodb:PutItem table:runs",
                                "events:PutEvents bus:runs"),
                        new Condition<>(
                                x -> x.resource().startsWith("bucket:") || RECEIVES_RUNS.test(x),
                                "S3, or receiving runs")),
                new Expected(
                        "api",
                        onEveryLane("sqs:SendMessage"),
                        permissions(
                                "s3:PutObject bucket:artifacts",
                                "dynamodb:PutItem table:binaries",
                                // The job and binary lists read their byOwner index; a job's runs, the runs table.
                                "dynamodb:Query table:jobs/index",
                                "dynamodb:Query table:binaries/index",
                                "dynamodb:Query table:runs"),
                        new Condition<>(
                                x -> RECEIVES_RUNS.test(x) || x.action().startsWith("events:"),
                                "receiving runs, or publishing run outcomes")));
    }

    /** The code's lanes' queues and their dead-letter queues, as resource keys. */
    private static final Resources RESOURCES = new Resources(Settings.defaults());

    private static final Set<String> LANE_QUEUES =
            RESOURCES.runQueues().stream().map(q -> queueKey(q.name())).collect(Collectors.toUnmodifiableSet());

    private static final Set<String> LANE_DEAD_LETTER_QUEUES = RESOURCES.runQueues().stream()
            .map(q -> queueKey(q.deadLetterName()))
            .collect(Collectors.toUnmodifiableSet());

    /** A receive from any lane's run queue (a dead-letter queue's is the sweeper's reconciliation, not a run). */
    private static final Predicate<Permission> RECEIVES_RUNS =
            x -> x.action().equals("sqs:ReceiveMessage") && LANE_QUEUES.contains(x.resource());

    private static String queueKey(String codeName) {
        return "queue:" + codeName.substring(Deployment.DEFAULT_PREFIX.length() + 1);
    }

    @Test
    void everyLaneHasAQueueAndADeadLetterQueueOfItsOwn() {
        assertThat(LANE_QUEUES).hasSize(Priority.values().length).contains("queue:runs");
        assertThat(LANE_DEAD_LETTER_QUEUES).hasSize(Priority.values().length).contains("queue:runs-dlq");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("components")
    void theDerivationSeesWhatTheCodePlainlyCalls(Expected expected) throws Exception {
        Set<Permission> p = of(expected.component());
        assertThat(p).containsAll(expected.onLanes());
        assertThat(p).containsAll(expected.calls());
        assertThat(p).doNotHave(expected.never());
    }

    /** Each action on every lane's run queue. */
    private static Set<Permission> onEveryLane(String... actions) {
        return on(LANE_QUEUES, actions);
    }

    /** Each action on every lane's dead-letter queue. */
    private static Set<Permission> onEveryLanesDeadLetterQueue(String... actions) {
        return on(LANE_DEAD_LETTER_QUEUES, actions);
    }

    private static Set<Permission> on(Set<String> queues, String... actions) {
        return queues.stream()
                .flatMap(q -> Arrays.stream(actions).map(a -> new Permission(a, q)))
                .collect(Collectors.toUnmodifiableSet());
    }

    private static Set<Permission> union(Set<Permission> a, Set<Permission> b) {
        return Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableSet());
    }

    /** Permissions written {@code "<action> <resource>"}. */
    private static Set<Permission> permissions(String... actionAndResource) {
        return Arrays.stream(actionAndResource)
                .map(p -> p.split(" ", -1))
                .map(p -> new Permission(p[0], p[1]))
                .collect(Collectors.toUnmodifiableSet());
    }

    private static Set<Permission> of(String component) throws Exception {
        var c = Components.ALL.stream()
                .filter(x -> x.name().equals(component))
                .findFirst()
                .orElseThrow();
        Set<Permission> p = new CodeActions().derive(c.entryClasses(), c.entryMethods());
        System.out.println("[derived] " + component + ": " + p);
        return p;
    }
}
