package dev.punctual.core.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Capacity;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Counts what this process asks of AWS: calls by {@code calls:<service>:<operation>} (failed ones also under
 * {@code failed:…}, and HTTP attempts, retries included, under {@code attempts:…}), and the DynamoDB capacity they consumed by {@code wcu|rcu:<table>} and
 * {@code wcu|rcu:<table>:<index>}. It is how the benchmark prices a run, counted where the calls are made rather
 * than guessed from the code.
 *
 * <p>Off unless {@value #FILE_ENV} names a file (or {@link #enable} is called): then every DynamoDB request asks
 * for its consumed capacity by index, and the counters are written to that file once a second and at exit, as
 * sorted {@code name value} lines. Counters are per process and only grow; a reader takes differences. When off,
 * nothing is changed and nothing counted. Installed on every client: {@code quarkus.<service>.interceptors} in
 * wiring, {@link AwsClients} for the rest.
 */
public final class Metering implements ExecutionInterceptor {
    public static final String FILE_ENV = "PUNCTUAL_METERING_FILE";
    private static final Map<String, DoubleAdder> COUNTERS = new ConcurrentHashMap<>();
    private static volatile boolean enabled;

    static {
        String file = System.getenv(FILE_ENV);
        if (file != null && !file.isBlank()) {
            enable();
            startWriting(Path.of(file));
        }
    }

    /** Public and argument-free: the SDK's configuration instantiates interceptors by class name. */
    public Metering() {}

    /** Starts counting (tests and in-process benchmarks); there is no way back, as counters only grow. */
    public static void enable() {
        enabled = true;
    }

    /** AWS's DynamoDB is never on this host: a loopback endpoint is DynamoDB Local (or LocalStack). */
    private static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    /** The counters so far, by name. */
    public static Map<String, Double> snapshot() {
        Map<String, Double> out = new TreeMap<>();
        COUNTERS.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        if (!enabled) {
            return context.request();
        }
        ReturnConsumedCapacity idx = ReturnConsumedCapacity.INDEXES;
        return switch (context.request()) {
            case GetItemRequest r -> r.toBuilder().returnConsumedCapacity(idx).build();
            case PutItemRequest r -> r.toBuilder().returnConsumedCapacity(idx).build();
            case UpdateItemRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            case DeleteItemRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            case QueryRequest r -> r.toBuilder().returnConsumedCapacity(idx).build();
            case ScanRequest r -> r.toBuilder().returnConsumedCapacity(idx).build();
            case TransactWriteItemsRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            case TransactGetItemsRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            case BatchWriteItemRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            case BatchGetItemRequest r ->
                r.toBuilder().returnConsumedCapacity(idx).build();
            default -> context.request();
        };
    }

    /** Called once per HTTP attempt: attempts beyond the calls are the SDK's retries (throttling, conflicts, 5xx). */
    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (enabled) {
            add("attempts:" + operation(attributes), 1);
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        if (!enabled) {
            return;
        }
        add("calls:" + operation(attributes), 1);
        List<ConsumedCapacity> consumed = switch (context.response()) {
            case GetItemResponse r -> single(r.consumedCapacity());
            case PutItemResponse r -> single(r.consumedCapacity());
            case UpdateItemResponse r -> single(r.consumedCapacity());
            case DeleteItemResponse r -> single(r.consumedCapacity());
            case QueryResponse r -> single(r.consumedCapacity());
            case ScanResponse r -> single(r.consumedCapacity());
            case TransactWriteItemsResponse r -> r.consumedCapacity();
            case TransactGetItemsResponse r -> r.consumedCapacity();
            case BatchWriteItemResponse r -> r.consumedCapacity();
            case BatchGetItemResponse r -> r.consumedCapacity();
            default -> List.of();
        };
        Object response = context.response();
        boolean read = response instanceof GetItemResponse
                || response instanceof QueryResponse
                || response instanceof ScanResponse
                || response instanceof TransactGetItemsResponse
                || response instanceof BatchGetItemResponse;
        // AWS bills a transaction's items twice a plain write's units; DynamoDB Local answers with four times
        // (MeteringTest pins it), so an emulator's transactional figures are halved to what AWS would bill.
        boolean transaction =
                response instanceof TransactWriteItemsResponse || response instanceof TransactGetItemsResponse;
        double scale = transaction && loopback(context.httpRequest().host()) ? 0.5 : 1;
        for (ConsumedCapacity c : consumed) {
            record(c, read, scale);
        }
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (enabled) {
            // A failed conditional write still costs its write units on AWS, but no response says how many.
            add("calls:" + operation(attributes), 1);
            add("failed:" + operation(attributes), 1);
        }
    }

    private static String operation(ExecutionAttributes a) {
        return a.getAttribute(SdkExecutionAttribute.SERVICE_NAME) + ":"
                + a.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    }

    private static List<ConsumedCapacity> single(ConsumedCapacity c) {
        return c == null ? List.of() : List.of(c);
    }

    /**
     * Splits one table's consumption into the table's own and each index's, read and write. Where an answer gives
     * only a total (no breakdown), it is counted on the table, as writes unless it named read units.
     */
    private static void record(ConsumedCapacity c, boolean read, double scale) {
        String table = c.tableName();
        if (c.table() == null && !c.hasGlobalSecondaryIndexes()) {
            units(table, c.readCapacityUnits(), c.writeCapacityUnits(), c.capacityUnits(), read, scale);
            return;
        }
        Capacity t = c.table();
        if (t != null) {
            units(table, t.readCapacityUnits(), t.writeCapacityUnits(), t.capacityUnits(), read, scale);
        }
        if (c.hasGlobalSecondaryIndexes()) {
            c.globalSecondaryIndexes()
                    .forEach((index, cap) -> units(
                            table + ":" + index,
                            cap.readCapacityUnits(),
                            cap.writeCapacityUnits(),
                            cap.capacityUnits(),
                            read,
                            scale));
        }
    }

    /** Read and write units as given, or, where only a total is, the total as the operation's kind. */
    private static void units(String name, Double reads, Double writes, Double total, boolean read, double scale) {
        double r = nz(reads);
        double w = nz(writes);
        if (r == 0 && w == 0) {
            if (read) {
                r = nz(total);
            } else {
                w = nz(total);
            }
        }
        add("rcu:" + name, r * scale);
        add("wcu:" + name, w * scale);
    }

    private static double nz(Double d) {
        return d == null ? 0 : d;
    }

    private static void add(String name, double amount) {
        if (amount != 0) {
            COUNTERS.computeIfAbsent(name, k -> new DoubleAdder()).add(amount);
        }
    }

    /** Writes the counters to {@code file} once a second and at exit, each time whole (written aside, then moved). */
    private static void startWriting(Path file) {
        Runnable write = () -> {
            try {
                StringBuilder text = new StringBuilder();
                snapshot()
                        .forEach((k, v) -> text.append(k).append(' ').append(v).append('\n'));
                Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        Thread writer = Thread.ofPlatform().daemon().name("metering").unstarted(() -> {
            while (true) {
                write.run();
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        writer.start();
        Runtime.getRuntime().addShutdownHook(new Thread(write, "metering-at-exit"));
    }
}
