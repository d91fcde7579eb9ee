package dev.punctual.core.tenant;

import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Every expression of a tenant's idempotency keys. A key's item lives in the jobs table under
 * {@code jobId = idem#<sha256(owner, key)>}, with no {@code owner} attribute (no index sees it, no job id can collide
 * with it) and {@code expiresAt} for the table's TTL. It holds the hash of the request's body, the ids of the jobs
 * that request creates (chosen before anything is written, so that a retry finds them, or writes them under the same
 * ids) and a lease: until it passes, the first request is taken to be still at work.
 *
 * <p>A key is used once its {@code expiresAt} has passed, whatever TTL has done: TTL deletes late (up to days), so
 * every condition here compares the time itself.
 */
public final class IdempotencyRepository {
    static final String BODY = "bodySha256";
    static final String JOB_IDS = "jobIds";
    static final String LEASE = "leaseUntil";

    private final DynamoDbClient dynamo;
    private final String table;

    public IdempotencyRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.jobs().name();
    }

    /** A key as stored: the body it was first used with, the jobs it creates, and its first request's lease. */
    public record Claim(String bodySha256, List<String> jobIds, Instant leaseUntil, Instant expiresAt) {}

    /**
     * Takes {@code key} for a request with body hash {@code bodySha256} that creates {@code jobIds}: empty when it
     * is now this request's; else the claim already there, read strongly.
     */
    public Optional<Claim> claim(String owner, String key, Claim claim, Instant now) {
        Map<String, AttributeValue> item = new HashMap<>(key(owner, key));
        item.put(BODY, s(claim.bodySha256()));
        item.put(JOB_IDS, Items.strings(claim.jobIds()));
        item.put(LEASE, n(claim.leaseUntil().toEpochMilli()));
        item.put(Resources.EXPIRES_AT, n(claim.expiresAt().getEpochSecond()));
        try {
            dynamo.putItem(p -> p.tableName(table)
                    .item(item)
                    .conditionExpression("attribute_not_exists(#id) OR #exp <= :now")
                    .expressionAttributeNames(Map.of("#id", Resources.JOB_ID, "#exp", Resources.EXPIRES_AT))
                    .expressionAttributeValues(Map.of(":now", n(now.getEpochSecond()))));
            return Optional.empty();
        } catch (ConditionalCheckFailedException taken) {
            return get(owner, key, now);
        }
    }

    /** The key's claim, read strongly; empty when there is none or it has expired. */
    public Optional<Claim> get(String owner, String key, Instant now) {
        var item = dynamo.getItem(g -> g.tableName(table).key(key(owner, key)).consistentRead(true))
                .item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        Claim c = new Claim(
                Items.str(item, BODY),
                Items.strings(item, JOB_IDS),
                Instant.ofEpochMilli(Items.longValue(item, LEASE)),
                Instant.ofEpochSecond(Items.longValue(item, Resources.EXPIRES_AT)));
        return c.expiresAt().isAfter(now) ? Optional.of(c) : Optional.empty();
    }

    /**
     * Takes over a claim whose request stopped before it finished (its lease passed): a new lease, if the claim is
     * still {@code seen} (two retries cannot both take it).
     */
    public boolean takeOver(String owner, String key, Claim seen, Instant newLease) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key(owner, key))
                    .updateExpression("SET #l = :new")
                    .conditionExpression("#l = :seen")
                    .expressionAttributeNames(Map.of("#l", LEASE))
                    .expressionAttributeValues(Map.of(
                            ":new",
                            n(newLease.toEpochMilli()),
                            ":seen",
                            n(seen.leaseUntil().toEpochMilli()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * Gives the key up after its request failed with nothing created: expired at once, so the same key may be used
     * again (with any body). Only while the claim is still {@code mine}; an update rather than a delete, so the API
     * needs no DeleteItem.
     */
    public void release(String owner, String key, Claim mine) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key(owner, key))
                    .updateExpression("SET #exp = :zero")
                    .conditionExpression("#l = :mine")
                    .expressionAttributeNames(Map.of("#exp", Resources.EXPIRES_AT, "#l", LEASE))
                    .expressionAttributeValues(
                            Map.of(":zero", n(0), ":mine", n(mine.leaseUntil().toEpochMilli()))));
        } catch (ConditionalCheckFailedException takenOver) {
            // Another request holds it now: its outcome stands.
        }
    }

    /** The item's key: a hash of the owner and the key, so a key of any characters fits and reveals nothing. */
    static Map<String, AttributeValue> key(String owner, String key) {
        return Map.of(Resources.JOB_ID, s("idem#" + sha256(owner + "\n" + key)));
    }

    public static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
