package dev.punctual.bench.calls;

import dev.punctual.bench.Machine;
import dev.punctual.bench.MarkdownTable;
import dev.punctual.bench.Trees;
import dev.punctual.bench.compare.Child;
import dev.punctual.emulators.EmbeddedAws;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * What one AWS SDK call costs the caller's process, by HTTP client: the executor's calls are most of its CPU a run
 * ({@code bench/README.md}), and the client is the one part of them a deployment chooses.
 */
@Command(
        name = "calls",
        mixinStandardHelpOptions = true,
        description = "Measures the CPU a DynamoDB call costs the calling JVM (started with the executor's JVM "
                + "options), by SDK HTTP client, against DynamoDB Local in the benchmark's own process.")
public final class CallsCommand implements Callable<Integer> {
    /** Items in the table; calls go round them. */
    static final int ITEMS = 200;
    /** Items a batched call names: the executor's run slots (4 by default), what its shared calls carry at most. */
    static final int BATCH = 4;
    /** The executor's JVM options, as deployed (bin/bench runs from the project's root). */
    static final Path JVM_OPTIONS = Path.of("executor", "jvm.options");

    @Option(
            names = "--clients",
            split = ",",
            defaultValue = "apache,apache5,url,crt",
            description = "HTTP clients: apache (the executor's), apache5, url (URL connection), crt (AWS CRT) "
                    + "(default: ${DEFAULT-VALUE}).")
    List<String> clients;

    @Option(
            names = "--ops",
            split = ",",
            defaultValue = "get,batch-get,update",
            description = "get (GetItem, strongly consistent), batch-get (BatchGetItem of " + BATCH + "), update "
                    + "(BatchExecuteStatement of " + BATCH + " updates) (default: ${DEFAULT-VALUE}).")
    List<String> ops;

    @Option(names = "--calls", defaultValue = "5000", description = "Measured calls (default: ${DEFAULT-VALUE}).")
    int calls;

    @Option(
            names = "--warmup",
            defaultValue = "3000",
            description = "Calls before the measured ones, not counted (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
            names = "--rounds",
            defaultValue = "3",
            description = "JVMs per client and operation, one after another (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public Integer call() throws Exception {
        List<String> jvmOptions = Files.exists(JVM_OPTIONS)
                ? Files.readAllLines(JVM_OPTIONS, StandardCharsets.UTF_8).stream()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .toList()
                : List.of();
        Path dir = Files.createTempDirectory("punctual-bench-calls-");
        try (EmbeddedAws aws = EmbeddedAws.startInMemory();
                DynamoDbClient ddb = DynamoDbClient.builder()
                        .endpointOverride(aws.dynamodbEndpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(EmbeddedAws.ACCESS_KEY, EmbeddedAws.SECRET_KEY)))
                        .build()) {
            String table = "calls";
            ddb.createTable(b -> b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
            // About a job item's size (its definition, schedule and binary's digest: 600–900 bytes).
            String body = "x".repeat(700);
            for (int i = 0; i < ITEMS; i++) {
                Map<String, AttributeValue> item = new HashMap<>(CallClient.key(i));
                item.put("body", AttributeValue.fromS(body));
                item.put("n", AttributeValue.fromN("0"));
                ddb.putItem(b -> b.tableName(table).item(item));
            }
            MarkdownTable t = new MarkdownTable(
                    "client", "operation", "CPU µs / call (median)", "CPU µs / call (rounds)", "wall µs / call");
            for (String op : ops) {
                for (String client : clients) {
                    List<double[]> measured = new ArrayList<>();
                    for (int r = 0; r < rounds; r++) {
                        System.err.printf("[calls] %s %s round %d%n", client, op, r + 1);
                        measured.add(measure(client, op, aws, table, jvmOptions, dir.resolve(client + "-" + op + r)));
                    }
                    double[] cpu =
                            measured.stream().mapToDouble(m -> m[0]).sorted().toArray();
                    double wall =
                            measured.stream().mapToDouble(m -> m[1]).sorted().toArray()[rounds / 2];
                    t.row(
                            client,
                            op,
                            fmt(cpu[rounds / 2]),
                            String.join(
                                    ", ",
                                    Arrays.stream(cpu)
                                            .mapToObj(CallsCommand::fmt)
                                            .toList()),
                            fmt(wall));
                }
            }
            StringBuilder out = new StringBuilder("# punctual bench calls\n\n");
            Machine.describe().forEach(l -> out.append(l).append('\n'));
            out.append("- calling JVM: ").append(String.join(" ", jvmOptions)).append(" (executor/jvm.options)\n");
            out.append("- calls: ")
                    .append(warmup)
                    .append(" warm-up, then ")
                    .append(calls)
                    .append(" measured, one after another on one thread; ")
                    .append(rounds)
                    .append(" JVMs per row\n");
            out.append("- the calling process's CPU (every thread: caller, client threads, JIT, GC) over the"
                    + " measured calls; DynamoDB Local runs in the benchmark's JVM, not counted\n\n");
            out.append(t.render());
            System.out.print(out);
            return 0;
        } finally {
            Trees.delete(dir);
        }
    }

    /** One calling JVM: its CPU and wall time per measured call, in µs. */
    private double[] measure(String client, String op, EmbeddedAws aws, String table, List<String> jvm, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Child.java()));
        command.addAll(jvm);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                CallClient.class.getName(),
                client,
                aws.dynamodbEndpoint().toString(),
                table,
                op,
                Integer.toString(warmup),
                Integer.toString(calls)));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        int exit = p.waitFor();
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        String last = lines.isEmpty() ? "" : lines.getLast().strip();
        if (exit != 0 || !last.matches("\\d+ \\d+")) {
            throw new IllegalStateException(client + " " + op + " failed (exit " + exit + "): "
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
        }
        String[] f = last.split(" ");
        return new double[] {Long.parseLong(f[0]) / 1e3 / calls, Long.parseLong(f[1]) / 1e3 / calls};
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
