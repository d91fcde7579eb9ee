package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

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

    private Contract mutated(UnaryOperator<String> edit) throws Exception {
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
        return new Contract(Terraform.load(copy));
    }
}
