package dev.punctual.core.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Creates the resources of {@link Resources} where nothing else does (the embedded emulators, a bare LocalStack).
 * Idempotent: what exists is left as it is. In AWS, Terraform creates them instead, from the same definition.
 */
public final class Provisioner {
    private Provisioner() {}

    /** Creates every table, queue and bucket of {@code resources} where {@code target} points (idempotent). */
    public static void provision(AwsClients.Target target, Resources resources) {
        try (DynamoDbClient d = AwsClients.dynamo(target);
                SqsClient q = AwsClients.sqs(target);
                S3Client s = AwsClients.s3(target)) {
            resources.tables().forEach(t -> createTable(d, t));
            resources.runQueues().forEach(spec -> createQueues(q, spec));
            createBucket(s, resources.bucket());
        }
    }

    private static void createTable(DynamoDbClient dynamo, TableSpec t) {
        List<AttributeDefinition> attrs = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        java.util.function.Consumer<String> attr = name -> {
            if (name != null && !seen.contains(name)) {
                seen.add(name);
                attrs.add(AttributeDefinition.builder()
                        .attributeName(name)
                        .attributeType(ScalarAttributeType.S)
                        .build());
            }
        };
        attr.accept(t.hashKey());
        attr.accept(t.rangeKey());
        t.indexes().forEach(i -> {
            attr.accept(i.hashKey());
            attr.accept(i.rangeKey());
        });
        List<GlobalSecondaryIndex> gsis = t.indexes().stream()
                .map(i -> GlobalSecondaryIndex.builder()
                        .indexName(i.name())
                        .keySchema(keys(i.hashKey(), i.rangeKey()))
                        .projection(p -> p.projectionType(ProjectionType.fromValue(i.projection())))
                        .build())
                .toList();
        try {
            dynamo.createTable(b -> b.tableName(t.name())
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(attrs)
                    .keySchema(keys(t.hashKey(), t.rangeKey()))
                    .globalSecondaryIndexes(gsis.isEmpty() ? null : gsis));
            dynamo.waiter().waitUntilTableExists(b -> b.tableName(t.name()));
            if (t.ttlAttribute() != null) {
                dynamo.updateTimeToLive(b -> b.tableName(t.name())
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName(t.ttlAttribute())));
            }
        } catch (ResourceInUseException exists) {
            // Already there (a data directory kept from an earlier start).
        }
    }

    private static List<KeySchemaElement> keys(String hash, String range) {
        List<KeySchemaElement> k = new ArrayList<>();
        k.add(KeySchemaElement.builder()
                .attributeName(hash)
                .keyType(KeyType.HASH)
                .build());
        if (range != null) {
            k.add(KeySchemaElement.builder()
                    .attributeName(range)
                    .keyType(KeyType.RANGE)
                    .build());
        }
        return k;
    }

    private static void createQueues(SqsClient sqs, QueueSpec q) {
        String dlqUrl = sqs.createQueue(b -> b.queueName(q.deadLetterName())
                        .attributes(
                                Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD, Integer.toString(14 * 24 * 3600))))
                .queueUrl();
        String dlqArn = sqs.getQueueAttributes(b -> b.queueUrl(dlqUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
        String redrive =
                "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"" + q.maxReceiveCount() + "\"}";
        sqs.createQueue(b -> b.queueName(q.name())
                .attributes(Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(q.visibilityTimeoutSeconds()),
                        QueueAttributeName.MESSAGE_RETENTION_PERIOD, Integer.toString(q.messageRetentionSeconds()),
                        QueueAttributeName.REDRIVE_POLICY, redrive)));
    }

    private static void createBucket(S3Client s3, String bucket) {
        try {
            s3.createBucket(b -> b.bucket(bucket));
        } catch (BucketAlreadyOwnedByYouException exists) {
            // fine
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            if (e.statusCode() != 409) {
                throw e;
            }
        }
    }
}
