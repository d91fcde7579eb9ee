package dev.punctual.core.binary;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Every expression of the binaries table. */
public final class BinaryRepository {
    private static final String NAME = "name";
    private static final String SHA256 = "sha256";
    private static final String SIZE = "size";
    private static final String CREATED_AT = "createdAt";

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
        var item = dynamo.getItem(b -> b.tableName(table)
                        .key(Map.of(Resources.BINARY_ID, s(id)))
                        .consistentRead(true))
                .item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Binary(
                Items.str(item, Resources.BINARY_ID),
                Items.str(item, Resources.OWNER),
                Items.str(item, NAME),
                Items.str(item, SHA256),
                Items.longValue(item, SIZE),
                Items.instant(item, CREATED_AT)));
    }
}
