package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.infra.Transactions;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/** A job's secret values and its webhook's signing secret: items of the jobs table beside the job's own. */
final class JobSecrets {
    /** The attribute of a job's secrets item ({@code jobId = <job>#secrets}) that holds the values. */
    private static final String SECRET_VALUES = "values";
    /** The attribute of a job's webhook item ({@code jobId = <job>#webhook}) that holds its signing secret. */
    private static final String WEBHOOK_SECRET = "secret";

    private final DynamoDbClient dynamo;
    private final TableSpec table;

    JobSecrets(DynamoDbClient dynamo, TableSpec table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /*
     * Secrets: a job's secret values live in an item of their own, jobId = "<job>#secrets". It has no owner
     * attribute, so the byOwner index (which projects ALL) never holds them, and no listing or job read returns
     * them; only the executor reads them, by key, when it starts a run. The job item keeps the names.
     */

    static Map<String, AttributeValue> secretsKey(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId + "#secrets"));
    }

    /**
     * Sets the job's secret values, in the transaction that writes the job. An empty map leaves an item without
     * values: a deleted or replaced job keeps none. (A put, not a delete, so the API needs no DeleteItem.)
     */
    Transactions.Write putSecrets(String jobId, Map<String, String> values) {
        Map<String, AttributeValue> item = new HashMap<>(secretsKey(jobId));
        if (!values.isEmpty()) {
            item.put(SECRET_VALUES, Items.stringMap(values));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build());
    }

    /*
     * A webhook's signing secret: an item of its own, jobId = "<job>#webhook", for the same reasons as the secrets,
     * and apart from them so that either can be replaced without the other. Only whoever delivers reads it.
     */

    static Map<String, AttributeValue> webhookKey(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId + "#webhook"));
    }

    /** Sets (or, null, clears) the job's webhook signing secret, in the transaction that writes the job. */
    Transactions.Write putWebhookSecret(String jobId, String secret) {
        Map<String, AttributeValue> item = new HashMap<>(webhookKey(jobId));
        if (secret != null) {
            item.put(WEBHOOK_SECRET, s(secret));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build());
    }

    /** The job's webhook signing secret, if it has one. */
    Optional<String> webhookSecret(String jobId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(webhookKey(jobId)).consistentRead(true))
                .item();
        return Optional.ofNullable(item == null ? null : Items.str(item, WEBHOOK_SECRET));
    }

    /** The job's secret values (empty when it has none). */
    Map<String, String> secrets(String jobId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(secretsKey(jobId)).consistentRead(true))
                .item();
        return item == null || !item.containsKey(SECRET_VALUES) ? Map.of() : Items.stringMap(item, SECRET_VALUES);
    }
}
