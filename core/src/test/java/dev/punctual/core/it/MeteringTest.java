package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.testing.TestStack;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/** The metering interceptor on DynamoDB Local: calls and capacity units, split between a table and its index. */
class MeteringTest {

    @Test
    void countsCallsAndTheCapacityEachTableAndIndexConsumed() {
        String jobs = meteredJobsTable();
        String index = jobs + ":" + Resources.JOBS_BY_OWNER;
        Map<String, Double> before = Metering.snapshot();

        dynamo.putItem(b -> b.tableName(jobs).item(job("j1", true)));
        dynamo.putItem(b -> b.tableName(jobs).item(job("j2", false)));
        dynamo.getItem(b -> b.tableName(jobs).key(Map.of(Resources.JOB_ID, s("j1"))));
        dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder()
                        .put(Put.builder().tableName(jobs).item(job("j3", true)).build())
                        .build(),
                TransactWriteItem.builder()
                        .put(Put.builder()
                                .tableName(jobs)
                                .item(job("j4", false))
                                .build())
                        .build()));
        try {
            dynamo.putItem(
                    b -> b.tableName(jobs).item(job("j1", true)).conditionExpression("attribute_not_exists(jobId)"));
        } catch (ConditionalCheckFailedException expected) {
            // counted as a call and a failure
        }

        Map<String, Double> d = minus(Metering.snapshot(), before);
        assertThat(d)
                .containsEntry("calls:DynamoDb:PutItem", 3.0)
                .containsEntry("failed:DynamoDb:PutItem", 1.0)
                .containsEntry("calls:DynamoDb:GetItem", 1.0)
                .containsEntry("calls:DynamoDb:TransactWriteItems", 1.0)
                .containsEntry("attempts:DynamoDb:TransactWriteItems", 1.0)
                // An eventually consistent read of a small item: half a unit.
                .containsEntry("rcu:" + jobs, 0.5)
                // Puts: 1 + 1 on the table, 1 on the index for the item that has its keys; the transaction's two
                // items at twice that (DynamoDB Local answers 8 and 4: halved, see Metering).
                .containsEntry("wcu:" + jobs, 2.0 + 4.0)
                .containsEntry("wcu:" + index, 1.0 + 2.0);
    }

    @Test
    void aKeysOnlyIndexCostsNothingForAWriteThatChangesNoneOfItsKeys() {
        String jobs = meteredJobsTable();
        String index = jobs + ":" + Resources.JOBS_BY_OWNER;
        dynamo.putItem(b -> b.tableName(jobs).item(job("k1", true)));
        Map<String, Double> before = Metering.snapshot();

        dynamo.updateItem(b -> b.tableName(jobs)
                .key(Map.of(Resources.JOB_ID, s("k1")))
                .updateExpression("SET pendingRunId = :r")
                .expressionAttributeValues(Map.of(":r", s("r1"))));
        Map<String, Double> plain = minus(Metering.snapshot(), before);
        dynamo.updateItem(b -> b.tableName(jobs)
                .key(Map.of(Resources.JOB_ID, s("k1")))
                .updateExpression("SET #s = :s")
                .expressionAttributeNames(Map.of("#s", Resources.OWNER_SORT))
                .expressionAttributeValues(Map.of(":s", s("y#k1"))));
        Map<String, Double> moved = minus(minus(Metering.snapshot(), before), plain);

        assertThat(plain).containsEntry("wcu:" + jobs, 1.0).doesNotContainKey("wcu:" + index);
        // A moved entry: the old one deleted, the new one put.
        assertThat(moved).containsEntry("wcu:" + jobs, 1.0).containsEntry("wcu:" + index, 2.0);
    }

    @Test
    void aBatchsStatementsAreCountedAtTheMeanOfThisProcesssUpdatesOfTheSameShape() {
        String jobs = meteredJobsTable();
        dynamo.putItem(b -> b.tableName(jobs).item(job("b1", false)));
        dynamo.putItem(b -> b.tableName(jobs).item(job("b2", false)));
        dynamo.putItem(b -> b.tableName(jobs).item(job("b3", false)));
        // One UpdateItem of the same shape as the statements below (the table, its key, pendingRunId): 1 unit.
        dynamo.updateItem(b -> b.tableName(jobs)
                .key(Map.of(Resources.JOB_ID, s("b1")))
                .updateExpression("SET #p = :r")
                .expressionAttributeNames(Map.of("#p", "pendingRunId"))
                .expressionAttributeValues(Map.of(":r", s("r1"))));
        // And one of another shape, which puts the item in the index (a unit there): of no bearing on the statements.
        dynamo.updateItem(b -> b.tableName(jobs)
                .key(Map.of(Resources.JOB_ID, s("b1")))
                .updateExpression("SET #o = :o, #s = :s")
                .expressionAttributeNames(Map.of("#o", Resources.OWNER, "#s", Resources.OWNER_SORT))
                .expressionAttributeValues(Map.of(":o", s("o"), ":s", s("x#b1"))));
        Map<String, Double> before = Metering.snapshot();

        // Two statements that win and one that loses its condition: DynamoDB Local reports no units for any.
        dynamo.batchExecuteStatement(b -> b.statements(
                statement(jobs, "b2", "r2"), statement(jobs, "b3", "r3"), statement(jobs, "missing", "r4")));

        Map<String, Double> d = minus(Metering.snapshot(), before);
        assertThat(d)
                .containsEntry("calls:DynamoDb:BatchExecuteStatement", 1.0)
                .containsEntry("statements:DynamoDb:BatchExecuteStatement", 3.0)
                .containsEntry("wcu:" + jobs, 2.0)
                .containsEntry("wcu-by:BatchExecuteStatement:" + jobs, 2.0)
                .doesNotContainKey("wcu:" + jobs + ":" + Resources.JOBS_BY_OWNER);
    }

    /** {@code UPDATE jobs SET pendingRunId = run WHERE jobId = id}, which loses where the job does not exist. */
    private static BatchStatementRequest statement(String table, String id, String run) {
        return BatchStatementRequest.builder()
                .statement("UPDATE \"" + table
                        + "\" SET \"pendingRunId\" = ? WHERE \"jobId\" = ? AND \"jobId\" IS NOT MISSING")
                .parameters(s(run), s(id))
                .build();
    }

    private final DynamoDbClient dynamo = AwsClients.dynamo(TestStack.target());

    /** Metering on, and a freshly provisioned jobs table (with its byOwner index): its name. */
    private static String meteredJobsTable() {
        Metering.enable();
        Settings settings = TestStack.isolatedSettings().build();
        Provisioner.provision(TestStack.target(), new Resources(settings));
        return settings.deployment().prefix() + "-jobs";
    }

    private static Map<String, Double> minus(Map<String, Double> after, Map<String, Double> before) {
        var out = new java.util.TreeMap<String, Double>();
        after.forEach((k, v) -> {
            double x = v - before.getOrDefault(k, 0.0);
            if (x != 0) {
                out.put(k, x);
            }
        });
        return out;
    }

    private static Map<String, AttributeValue> job(String id, boolean indexed) {
        return indexed
                ? Map.of(Resources.JOB_ID, s(id), Resources.OWNER, s("o"), Resources.OWNER_SORT, s("x#" + id))
                : Map.of(Resources.JOB_ID, s(id));
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }
}
