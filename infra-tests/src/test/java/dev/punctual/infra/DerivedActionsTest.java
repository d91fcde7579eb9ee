package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.infra.CodeActions.Permission;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The derivation itself, on facts about the code that are plain to see: the executor receives and deletes
 * messages, sends only to re-queue a run waiting on an overlapping one, and never queries or creates items; the sweeper never touches S3; the API presigns uploads (PutObject) and sends runs due
 * soon. If the derivation went blind (e.g. stopped following lambdas), these would fail before the IAM check
 * could pass vacuously.
 */
class DerivedActionsTest {
    private static Set<Permission> of(String component) throws Exception {
        var c = Components.ALL.stream()
                .filter(x -> x.name().equals(component))
                .findFirst()
                .orElseThrow();
        Set<Permission> p = new CodeActions().derive(c.entryClasses(), c.entryMethods());
        System.out.println("[derived] " + component + ": " + p);
        return p;
    }

    @Test
    void executor() throws Exception {
        Set<Permission> p = of("executor");
        assertThat(p)
                .contains(
                        new Permission("sqs:ReceiveMessage", "queue:runs"),
                        new Permission("sqs:DeleteMessage", "queue:runs"),
                        new Permission("sqs:ChangeMessageVisibility", "queue:runs"),
                        new Permission("dynamodb:ConditionCheckItem", "table:jobs"),
                        new Permission("dynamodb:UpdateItem", "table:runs"),
                        new Permission("s3:GetObject", "bucket:artifacts"),
                        new Permission("s3:PutObject", "bucket:artifacts"),
                        new Permission("sqs:SendMessage", "queue:runs"));
        assertThat(p)
                .noneMatch(
                        x -> x.action().equals("dynamodb:Query") || x.action().equals("dynamodb:PutItem"));
    }

    @Test
    void sweeper() throws Exception {
        Set<Permission> p = of("sweeper");
        assertThat(p)
                .contains(
                        new Permission("dynamodb:Query", "table:runs"),
                        new Permission("sqs:SendMessage", "queue:runs"),
                        new Permission("dynamodb:UpdateItem", "table:sweeps"),
                        new Permission("dynamodb:PutItem", "table:runs"));
        assertThat(p).noneMatch(x -> x.resource().startsWith("bucket:"));
        assertThat(p).doesNotContain(new Permission("sqs:ReceiveMessage", "queue:runs"));
    }

    @Test
    void api() throws Exception {
        Set<Permission> p = of("api");
        assertThat(p)
                .contains(
                        new Permission("s3:PutObject", "bucket:artifacts"),
                        new Permission("sqs:SendMessage", "queue:runs"),
                        new Permission("dynamodb:PutItem", "table:binaries"),
                        new Permission("dynamodb:Query", "table:jobs"));
        assertThat(p).doesNotContain(new Permission("sqs:ReceiveMessage", "queue:runs"));
    }
}
