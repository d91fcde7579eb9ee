package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.testing.TestStack;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Reading the items a keys-only index names, on DynamoDB Local: more keys than one BatchGetItem takes. */
class BatchReadsTest {

    @Test
    void readsEveryItemInTheKeysOrderAndLeavesOutOnesThatAreGone() {
        Settings settings = TestStack.isolatedSettings().build();
        Provisioner.provision(TestStack.target(), new Resources(settings));
        String jobs = settings.deployment().prefix() + "-jobs";
        DynamoDbClient dynamo = AwsClients.dynamo(TestStack.target());
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 249; i >= 0; i--) {
            String id = "j" + i;
            dynamo.putItem(b -> b.tableName(jobs).item(Map.of(Resources.JOB_ID, s(id), "n", s("item " + id))));
            keys.add(Map.of(Resources.JOB_ID, s(id)));
            if (i == 120) {
                keys.add(Map.of(Resources.JOB_ID, s("deleted")));
            }
        }

        List<Map<String, AttributeValue>> items = BatchReads.get(dynamo::batchGetItem, jobs, keys);

        assertThat(items).hasSize(250);
        assertThat(items.stream().map(i -> i.get("n").s()).toList())
                .as("in the keys' order, across three calls of at most 100 keys")
                .startsWith("item j249", "item j248")
                .endsWith("item j1", "item j0")
                .doesNotContain("item deleted");
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }
}
