package dev.punctual.core.sweep;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Every expression of the sweeps table: the sweeper's watermark, the first minute bucket not yet known to be fully
 * handled. It only moves forward; two sweepers advancing it at once both succeed or the later value wins.
 */
public final class WatermarkRepository {
    private static final String WATERMARK = "watermark";
    private static final String BUCKET = "bucket";
    private static final String UPDATED_AT = "updatedAt";

    private final DynamoDbClient dynamo;
    private final String table;

    public WatermarkRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.sweeps().name();
    }

    public Optional<Instant> get() {
        var item = dynamo.getItem(b -> b.tableName(table).key(key()).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.ofNullable(Items.instant(item, BUCKET));
    }

    /** Moves the watermark to {@code to} unless it is already there or beyond. ISO instants compare as strings. */
    public boolean advance(Instant to, Instant now) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key())
                    .updateExpression("SET #b = :to, #u = :now")
                    .conditionExpression("attribute_not_exists(#b) OR #b < :to")
                    .expressionAttributeNames(Map.of("#b", BUCKET, "#u", UPDATED_AT))
                    .expressionAttributeValues(Map.of(":to", instant(to), ":now", instant(now))));
            return true;
        } catch (ConditionalCheckFailedException alreadyAhead) {
            return false;
        }
    }

    private static Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> key() {
        return Map.of(Resources.SWEEP_NAME, s(WATERMARK));
    }
}
