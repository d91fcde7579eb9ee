package dev.punctual.bench.calls;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.crt.AwsCrtHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * The measured side of {@code bench calls}, a JVM of its own (started with the executor's JVM options): makes one
 * kind of DynamoDB call through one HTTP client, {@code warmup} times and then {@code calls} times, one after another
 * on one thread, and prints {@code <process CPU ns> <wall ns>} of the measured calls. Its process CPU counts every
 * thread of it: the caller, the HTTP client's own threads (the CRT's event loop), the JIT and the GC.
 */
public final class CallClient {
    private CallClient() {}

    /** The HTTP clients compared, as the SDK builds each with its defaults. */
    static SdkHttpClient http(String name) {
        return switch (name) {
            case "apache" -> ApacheHttpClient.create();
            case "apache5" -> Apache5HttpClient.create();
            case "url" -> UrlConnectionHttpClient.create();
            case "crt" -> AwsCrtHttpClient.create();
            default -> throw new IllegalArgumentException("no such client: " + name);
        };
    }

    /** args: client, endpoint, table, operation, warm-up calls, measured calls. */
    public static void main(String[] args) {
        String op = args[3];
        int warmup = Integer.parseInt(args[4]);
        int calls = Integer.parseInt(args[5]);
        try (DynamoDbClient ddb = DynamoDbClient.builder()
                .httpClient(http(args[0]))
                .endpointOverride(URI.create(args[1]))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build()) {
            Runnable call = call(ddb, args[2], op);
            for (int i = 0; i < warmup; i++) {
                call.run();
            }
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu = os.getProcessCpuTime();
            long wall = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            System.out.println((os.getProcessCpuTime() - cpu) + " " + (System.nanoTime() - wall));
        }
    }

    /** {@code get}: a strongly consistent GetItem; {@code batch-get}: BatchGetItem of 4; {@code update}: 4 PartiQL updates. */
    private static Runnable call(DynamoDbClient ddb, String table, String op) {
        int[] next = {0};
        return switch (op) {
            case "get" ->
                () -> ddb.getItem(b -> b.tableName(table)
                        .key(key(next[0]++ % CallsCommand.ITEMS))
                        .consistentRead(true));
            case "batch-get" ->
                () -> {
                    List<Map<String, AttributeValue>> keys = new ArrayList<>();
                    for (int i = 0; i < CallsCommand.BATCH; i++) {
                        keys.add(key(next[0]++ % CallsCommand.ITEMS));
                    }
                    ddb.batchGetItem(b -> b.requestItems(Map.of(
                            table,
                            KeysAndAttributes.builder()
                                    .keys(keys)
                                    .consistentRead(true)
                                    .build())));
                };
            case "update" ->
                () -> {
                    List<BatchStatementRequest> statements = new ArrayList<>();
                    for (int i = 0; i < CallsCommand.BATCH; i++) {
                        int n = next[0]++;
                        statements.add(BatchStatementRequest.builder()
                                .statement("UPDATE \"" + table + "\" SET n = ? WHERE pk = ?")
                                .parameters(
                                        AttributeValue.fromN(Integer.toString(n)),
                                        AttributeValue.fromS("item-" + n % CallsCommand.ITEMS))
                                .build());
                    }
                    ddb.batchExecuteStatement(b -> b.statements(statements));
                };
            default -> throw new IllegalArgumentException("no such operation: " + op);
        };
    }

    static Map<String, AttributeValue> key(int n) {
        return Map.of("pk", AttributeValue.fromS("item-" + n));
    }
}
