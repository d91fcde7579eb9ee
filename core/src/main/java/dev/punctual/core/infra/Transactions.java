package dev.punctual.core.infra;

import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Runs a TransactWriteItems call and turns a condition failure into a normal "lost" outcome carrying, for each item,
 * whether its condition failed and the item as it was (when the item asked for ALL_OLD).
 */
public final class Transactions {
    /**
     * One write of a transaction, as a repository composed it (a conditional put, update, delete or check of one
     * item): a service combines the writes of several tables into one transaction without seeing how each is
     * expressed.
     */
    public record Write(TransactWriteItem item) {}

    private final DynamoDbClient dynamo;

    public Transactions(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    /**
     * Like {@link #write}, but a transaction that lost only to a concurrent transaction on the same items (no
     * condition failed) is tried again: its conditions may well still hold, and giving up could skip a write that
     * nobody else will make.
     */
    public Outcome writeRetryingConflicts(List<Write> items) {
        Outcome o = write(items);
        for (int i = 1; i < CONFLICT_RETRIES && o.conflictOnly(); i++) {
            try {
                Thread.sleep(10L << i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return o;
            }
            o = write(items);
        }
        return o;
    }

    static final int CONFLICT_RETRIES = 4;

    public Outcome write(List<Write> items) {
        try {
            dynamo.transactWriteItems(
                    b -> b.transactItems(items.stream().map(Write::item).toList()));
            return new Outcome(true, List.of());
        } catch (TransactionCanceledException e) {
            List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
            boolean conditional = reasons.stream().anyMatch(r -> "ConditionalCheckFailed".equals(r.code()));
            if (!conditional) {
                // Conflicts with another transaction (TransactionConflict) are also races we lose; anything
                // else (throttling, validation) is a real error for the caller's retry policy.
                boolean conflict = reasons.stream().anyMatch(r -> "TransactionConflict".equals(r.code()));
                if (!conflict) {
                    throw e;
                }
            }
            return new Outcome(false, reasons);
        }
    }

    /** Whether the transaction won; when it lost, the per-item reasons in request order. */
    public record Outcome(boolean won, List<CancellationReason> reasons) {
        /** Lost, but no condition failed: another transaction held the items. */
        public boolean conflictOnly() {
            return !won && reasons.stream().noneMatch(r -> "ConditionalCheckFailed".equals(r.code()));
        }

        public boolean failed(int index) {
            return index < reasons.size()
                    && "ConditionalCheckFailed".equals(reasons.get(index).code());
        }

        public Map<String, AttributeValue> oldItem(int index) {
            if (index >= reasons.size() || !reasons.get(index).hasItem()) {
                return null;
            }
            return reasons.get(index).item();
        }
    }
}
