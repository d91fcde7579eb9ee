package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.infra.CodeActions.Permission;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.Condition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The derivation itself, on facts about the code that are plain to see: the executor receives and deletes
 * messages, sends only to re-queue a run waiting on an overlapping one, and never queries or creates items; the sweeper never touches S3; the API presigns uploads (PutObject) and sends runs due
 * soon. If the derivation went blind (e.g. stopped following lambdas), these would fail before the IAM check
 * could pass vacuously.
 */
class DerivedActionsTest {
    /** What a component's code is plainly seen to call, and what it plainly never calls. */
    record Expected(String component, Set<Permission> calls, Condition<Permission> never) {
        @Override
        public String toString() {
            return component;
        }
    }

    static Stream<Expected> components() {
        return Stream.of(
                new Expected(
                        "executor",
                        permissions(
                                "sqs:ReceiveMessage queue:runs",
                                "sqs:DeleteMessage queue:runs",
                                "sqs:ChangeMessageVisibility queue:runs",
                                // The overlap check on the job's active run (a claim under overlap allow is an
                                // update of the run alone, and reads the job).
                                "dynamodb:ConditionCheckItem table:runs",
                                "dynamodb:GetItem table:jobs",
                                // The strong reads of the jobs of runs claimed at once, shared (SharedJobReads).
                                "dynamodb:BatchGetItem table:jobs",
                                "dynamodb:UpdateItem table:runs",
                                "s3:GetObject bucket:artifacts",
                                "s3:PutObject bucket:artifacts",
                                "sqs:SendMessage queue:runs",
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
                        permissions(
                                // The sweep reads the byDue index; a dead-man check, the job's runs themselves.
                                "dynamodb:Query table:runs/index",
                                "dynamodb:Query table:runs",
                                "sqs:SendMessage queue:runs",
                                "dynamodb:UpdateItem table:sweeps",
                                "dynamodb:PutItem table:runs",
                                "events:PutEvents bus:runs"),
                        new Condition<>(
                                x -> x.resource().startsWith("bucket:") || x.equals(RECEIVE_RUNS),
                                "S3, or receiving runs")),
                new Expected(
                        "api",
                        permissions(
                                "s3:PutObject bucket:artifacts",
                                "sqs:SendMessage queue:runs",
                                "dynamodb:PutItem table:binaries",
                                // The job and binary lists read their byOwner index; a job's runs, the runs table.
                                "dynamodb:Query table:jobs/index",
                                "dynamodb:Query table:binaries/index",
                                "dynamodb:Query table:runs"),
                        new Condition<>(
                                x -> x.equals(RECEIVE_RUNS) || x.action().startsWith("events:"),
                                "receiving runs, or publishing run outcomes")));
    }

    private static final Permission RECEIVE_RUNS = new Permission("sqs:ReceiveMessage", "queue:runs");

    @ParameterizedTest(name = "{0}")
    @MethodSource("components")
    void theDerivationSeesWhatTheCodePlainlyCalls(Expected expected) throws Exception {
        Set<Permission> p = of(expected.component());
        assertThat(p).containsAll(expected.calls());
        assertThat(p).doNotHave(expected.never());
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
