package dev.punctual.core.binary;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** Every expression of the binaries table. */
public final class BinaryRepository {
    private static final String NAME = "name";
    private static final String SHA256 = "sha256";
    private static final String SIZE = "size";
    private static final String CREATED_AT = Resources.CREATED_AT;
    private static final String UPLOADED_AT = "uploadedAt";

    private final DynamoDbClient dynamo;
    private final String table;

    public BinaryRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.binaries().name();
    }

    public void insert(Binary b) {
        dynamo.putItem(p -> p.tableName(table)
                .item(Map.of(
                        Resources.BINARY_ID,
                        s(b.id()),
                        Resources.OWNER,
                        s(b.owner()),
                        NAME,
                        s(b.name()),
                        SHA256,
                        s(b.sha256()),
                        SIZE,
                        n(b.size()),
                        CREATED_AT,
                        instant(b.createdAt())))
                .conditionExpression("attribute_not_exists(#id)")
                .expressionAttributeNames(Map.of("#id", Resources.BINARY_ID)));
    }

    public Optional<Binary> get(String id) {
        return get(id, true);
    }

    /**
     * An eventually consistent read (half a strongly consistent one's price) may miss a binary registered a moment
     * ago, or its upload mark: callers that need either read strongly when it does ({@code consistent}).
     */
    public Optional<Binary> get(String id, boolean consistent) {
        var item = dynamo.getItem(b -> b.tableName(table)
                        .key(Map.of(Resources.BINARY_ID, s(id)))
                        .consistentRead(consistent))
                .item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(fromItem(item));
    }

    /**
     * What a cursor of {@link #listByOwner} may hold for {@code owner}, {@code binaryId} checking the binary id (as
     * {@code JobRepository.ownerCursor} says for jobs).
     */
    public static Map<String, Predicate<String>> ownerCursor(String owner, Predicate<String> binaryId) {
        return Map.of(Resources.BINARY_ID, binaryId, Resources.OWNER, owner::equals, Resources.CREATED_AT, at -> true);
    }

    /**
     * One page of an owner's binaries, newest first; with {@code sha256} (null: any), only those of that content
     * (filtered by DynamoDB after the page is read, so a page may come short and still have a next one).
     */
    public PageOfBinaries listByOwner(String owner, String sha256, int limit, PageKey startKey) {
        Map<String, String> names = new HashMap<>(Map.of("#o", Resources.OWNER));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":o", s(owner)));
        if (sha256 != null) {
            names.put("#sha", SHA256);
            values.put(":sha", s(sha256));
        }
        QueryResponse r = dynamo.query(b -> b.tableName(table)
                .indexName(Resources.BINARIES_BY_OWNER)
                .keyConditionExpression("#o = :o")
                .filterExpression(sha256 == null ? null : "#sha = :sha")
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(PageKey.startOf(startKey)));
        return new PageOfBinaries(
                r.items().stream().map(BinaryRepository::fromItem).toList(), PageKey.after(r));
    }

    public record PageOfBinaries(List<Binary> items, PageKey lastKey) {}

    private static Binary fromItem(Map<String, AttributeValue> item) {
        return new Binary(
                Items.str(item, Resources.BINARY_ID),
                Items.str(item, Resources.OWNER),
                Items.str(item, NAME),
                Items.str(item, SHA256),
                Items.longValue(item, SIZE),
                Items.instant(item, CREATED_AT),
                item.containsKey(UPLOADED_AT) ? Items.instant(item, UPLOADED_AT) : null);
    }

    /**
     * Records that the content was found in place, so later job creations need not look in S3 again. The object
     * is never replaced by other bytes (its key is its owner and its sha256, and the upload URL pins the
     * checksum), so once found it stays valid; the executor verifies the hash before every use anyway.
     */
    public void markUploaded(String id, Instant at) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(Map.of(Resources.BINARY_ID, s(id)))
                    .updateExpression("SET #u = :at")
                    .conditionExpression("attribute_exists(#id) AND attribute_not_exists(#u)")
                    .expressionAttributeNames(Map.of("#u", UPLOADED_AT, "#id", Resources.BINARY_ID))
                    .expressionAttributeValues(Map.of(":at", instant(at))));
        } catch (ConditionalCheckFailedException e) {
            // Marked already, by a concurrent request.
        }
    }
}
