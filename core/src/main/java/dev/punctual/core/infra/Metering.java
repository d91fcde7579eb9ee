package dev.punctual.core.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.Capacity;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Counts what this process asks of AWS: calls by {@code calls:<service>:<operation>} (failed ones also under
 * {@code failed:…}, and HTTP attempts, retries included, under {@code attempts:…}), and the DynamoDB capacity they
 * consumed by {@code wcu|rcu:<table>} and {@code wcu|rcu:<table>:<index>}. It is how the benchmark prices a run, counted where the calls are made rather
 * than guessed from the code.
 *
 * <p>Off unless {@value #FILE_ENV} names a file (or {@link #enable} is called): then every DynamoDB request asks
 * for its consumed capacity by index, and the counters are written to that file once a second and at exit, as
 * sorted {@code name value} lines. Counters are per process and only grow; a reader takes differences. Installed
 * only on the clients a process builds once it has asked ({@link #asked}: wiring's client producers,
 * {@link AwsClients}): a process that never asks has no trace of it in its SDK pipelines.
 */
public final class Metering implements ExecutionInterceptor {
    public static final String FILE_ENV = "PUNCTUAL_METERING_FILE";
    private static final String RETURN_CONSUMED = "ReturnConsumedCapacity";
    private static final String CONSUMED = "ConsumedCapacity";
    /** Operations whose consumed capacity is read units (where an answer gives only a total). */
    private static final Set<String> READS = Set.of("GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems");

    private static final Map<String, DoubleAdder> COUNTERS = new ConcurrentHashMap<>();
    private static volatile boolean enabled;

    static {
        String file = System.getenv(FILE_ENV);
        if (file != null && !file.isBlank()) {
            enable();
            startWriting(Path.of(file));
        }
    }

    private Metering() {}

    /**
     * Starts counting (tests and in-process benchmarks) on the clients built from now on; there is no way back, as
     * counters only grow.
     */
    public static void enable() {
        enabled = true;
    }

    /** Whether this process asked to count its calls ({@link #FILE_ENV}, {@link #enable}). */
    public static boolean asked() {
        return enabled;
    }

    /** A meter for a client being built (only once {@link #asked}: it counts whatever it sees). */
    public static Metering create() {
        return new Metering();
    }

    /** Adds the meter to a client being built, if this process asked for it. */
    public static void addIfAsked(ClientOverrideConfiguration.Builder client) {
        if (enabled) {
            client.addExecutionInterceptor(new Metering());
        }
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

    /**
     * Every DynamoDB operation that can report what it consumed has a {@code ReturnConsumedCapacity} member: set it
     * through the request's own field list, so no operation is left out and none needs naming here.
     */
    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof DynamoDbRequest request)) {
            return context.request();
        }
        DynamoDbRequest.Builder builder = request.toBuilder();
        for (SdkField<?> field : ((SdkPojo) builder).sdkFields()) {
            if (field.memberName().equals(RETURN_CONSUMED)) {
                field.set(builder, ReturnConsumedCapacity.INDEXES.toString());
                return builder.build();
            }
        }
        return request;
    }

    /** Called once per HTTP attempt: attempts beyond the calls are the SDK's retries (throttling, conflicts, 5xx). */
    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        add("attempts:" + operation(attributes), 1);
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        add("calls:" + operation(attributes), 1);
        // One ConsumedCapacity for single-item operations and queries, a list (one per table) for the others.
        Object consumed =
                context.response().getValueForField(CONSUMED, Object.class).orElse(null);
        List<?> tables = consumed instanceof List<?> l ? l : consumed == null ? List.of() : List.of(consumed);
        // AWS bills a transaction's items twice a plain write's units; DynamoDB Local answers with four times
        // (MeteringTest pins it), so an emulator's transactional figures are halved to what AWS would bill.
        double scale = operation.startsWith("Transact")
                        && loopback(context.httpRequest().host())
                ? 0.5
                : 1;
        for (Object c : tables) {
            record(operation, (ConsumedCapacity) c, READS.contains(operation), scale);
            if (context.request() instanceof UpdateItemRequest u) {
                String shape = shape(
                        u.tableName(),
                        u.key().keySet(),
                        u.expressionAttributeNames().values());
                add("updates:" + shape, 1);
                perShape(shape, (ConsumedCapacity) c);
            }
        }
        if (tables.isEmpty()
                && context.request() instanceof BatchExecuteStatementRequest batch
                && context.response() instanceof BatchExecuteStatementResponse answers) {
            estimateStatements(batch, answers);
        }
    }

    /**
     * DynamoDB Local reports nothing for a {@code BatchExecuteStatement}; AWS bills each statement as the single
     * write it is (an UPDATE as an UpdateItem). Each statement that won is counted at the mean units this process's
     * UpdateItem calls of the same shape consumed, table and each index: the same table and attribute names, which is
     * the same write (a statement is translated from an UpdateItem's expressions, RunRepository.applyAll). Counted
     * under {@code BatchExecuteStatement}; a statement of a shape no UpdateItem had is counted as calls only.
     */
    private static void estimateStatements(BatchExecuteStatementRequest batch, BatchExecuteStatementResponse answers) {
        add("statements:DynamoDb:BatchExecuteStatement", batch.statements().size());
        for (int i = 0; i < batch.statements().size() && i < answers.responses().size(); i++) {
            String text = batch.statements().get(i).statement();
            Matcher table = UPDATE_TABLE.matcher(text);
            if (answers.responses().get(i).error() != null || !table.lookingAt()) {
                continue;
            }
            List<String> names = new ArrayList<>();
            Matcher quoted = QUOTED.matcher(text.substring(table.end()));
            while (quoted.find()) {
                names.add(quoted.group(1));
            }
            String shape = shape(table.group(1), List.of(), names);
            double updates =
                    COUNTERS.getOrDefault("updates:" + shape, new DoubleAdder()).sum();
            if (updates == 0) {
                continue;
            }
            String prefix = "wcu-shape:" + shape + "|";
            COUNTERS.forEach((k, v) -> {
                if (k.startsWith(prefix)) {
                    String name = k.substring(prefix.length());
                    double mean = v.sum() / updates;
                    add("wcu:" + name, mean);
                    add("wcu-by:BatchExecuteStatement:" + name, mean);
                }
            });
        }
    }

    /** A write's table and the attribute names it uses (its key's among them), as one key. */
    private static String shape(String table, Collection<String> key, Collection<String> names) {
        TreeSet<String> all = new TreeSet<>(key);
        all.addAll(names);
        return table + "(" + String.join(",", all) + ")";
    }

    /** An UpdateItem's write units by its shape, for {@link #estimateStatements}. */
    private static void perShape(String shape, ConsumedCapacity c) {
        String at = "wcu-shape:" + shape + "|";
        if (c.table() != null) {
            Capacity t = c.table();
            add(at + c.tableName(), writes(t.writeCapacityUnits(), t.readCapacityUnits(), t.capacityUnits()));
        } else if (!c.hasGlobalSecondaryIndexes()) {
            add(at + c.tableName(), writes(c.writeCapacityUnits(), c.readCapacityUnits(), c.capacityUnits()));
        }
        if (c.hasGlobalSecondaryIndexes()) {
            c.globalSecondaryIndexes()
                    .forEach((index, cap) -> add(
                            at + c.tableName() + ":" + index,
                            writes(cap.writeCapacityUnits(), cap.readCapacityUnits(), cap.capacityUnits())));
        }
    }

    /** A write's units: as given, or its total where only that is (as {@link #units} counts them). */
    private static double writes(Double writes, Double reads, Double total) {
        return nz(writes) == 0 && nz(reads) == 0 ? nz(total) : nz(writes);
    }

    private static final Pattern QUOTED = Pattern.compile("\"(\\w+)\"");
    private static final Pattern UPDATE_TABLE = Pattern.compile("UPDATE \"([^\"]+)\"");

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        // A failed conditional write still costs its write units on AWS, but no response says how many.
        add("calls:" + operation(attributes), 1);
        add("failed:" + operation(attributes), 1);
    }

    private static String operation(ExecutionAttributes a) {
        return a.getAttribute(SdkExecutionAttribute.SERVICE_NAME) + ":"
                + a.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
    }

    /**
     * Splits one table's consumption into the table's own and each index's, read and write. Where an answer gives
     * only a total (no breakdown), it is counted on the table, as writes unless it named read units.
     */
    private static void record(String operation, ConsumedCapacity c, boolean read, double scale) {
        String table = c.tableName();
        if (c.table() == null && !c.hasGlobalSecondaryIndexes()) {
            units(operation, table, c.readCapacityUnits(), c.writeCapacityUnits(), c.capacityUnits(), read, scale);
            return;
        }
        Capacity t = c.table();
        if (t != null) {
            units(operation, table, t.readCapacityUnits(), t.writeCapacityUnits(), t.capacityUnits(), read, scale);
        }
        if (c.hasGlobalSecondaryIndexes()) {
            c.globalSecondaryIndexes()
                    .forEach((index, cap) -> units(
                            operation,
                            table + ":" + index,
                            cap.readCapacityUnits(),
                            cap.writeCapacityUnits(),
                            cap.capacityUnits(),
                            read,
                            scale));
        }
    }

    /**
     * Read and write units as given, or, where only a total is, the total as the operation's kind; counted by table
     * (or index) and again by operation and table, which says which step of a run they went to.
     */
    private static void units(
            String operation, String name, Double reads, Double writes, Double total, boolean read, double scale) {
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
        add("rcu-by:" + operation + ":" + name, r * scale);
        add("wcu-by:" + operation + ":" + name, w * scale);
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
                // The next write tries again; the counters themselves are never lost.
                System.err.println("metering: cannot write " + file + ": " + e);
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
