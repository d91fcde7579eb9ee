package dev.punctual.bench.dispatch;

import java.time.Duration;
import java.util.Set;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * A region's network, modelled in the SDK's pipeline: every HTTP attempt waits {@code call} before it is sent
 * ({@code transaction} for DynamoDB's transactions, which take longer), so the calling thread waits as it would on a
 * network, and code that overlaps its calls gains what it would gain in AWS. It models only the added round trip:
 * not AWS's own limits (partition throughput, throttling, SQS's per-queue rates) nor a variance of latency.
 */
final class ModelledLatency implements ExecutionInterceptor {
    private static final Set<String> TRANSACTIONS = Set.of("TransactWriteItems", "TransactGetItems");

    private final Duration call;
    private final Duration transaction;
    private volatile boolean on;

    ModelledLatency(Duration call, Duration transaction) {
        this.call = call;
        this.transaction = transaction;
    }

    /** Whether the wait applies: off while the scenario sets itself up, on while it measures. */
    void on(boolean v) {
        on = v;
    }

    Duration call() {
        return call;
    }

    Duration transaction() {
        return transaction;
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (!on) {
            return;
        }
        String op = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        Duration d = TRANSACTIONS.contains(op) ? transaction : call;
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
