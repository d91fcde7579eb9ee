package dev.punctual.infra;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.QueueSpec;
import dev.punctual.core.infra.Resources;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The AWS actions a component performs, derived from the compiled code: a call graph over the project's classes
 * from the component's entry points, collecting every AWS SDK client call (and DynamoDB transaction item kind) it
 * can reach, attributed to the resource of the adapter class that makes it. Nothing here is listed by hand except
 * how an SDK method maps to its IAM action and which adapter owns which resource.
 */
final class CodeActions {
    private static final String OURS = "dev/punctual/";
    private static final String SDK = "software/amazon/awssdk/services/";

    /** Which resource each adapter class acts on: the key is a Terraform resource kind and the table suffix. */
    static final Map<String, String> ADAPTER_RESOURCE = Map.ofEntries(
            Map.entry("dev/punctual/core/job/JobRepository", "table:jobs"),
            // A job's secret items (<job>#secrets, <job>#webhook), for JobRepository.
            Map.entry("dev/punctual/core/job/JobSecrets", "table:jobs"),
            // A tenant's usage item lives in the jobs table (tenant#<owner>).
            Map.entry("dev/punctual/core/tenant/UsageRepository", "table:jobs"),
            // So do a tenant's running slots (tenant#<owner>#running#<i>).
            Map.entry("dev/punctual/core/tenant/TenantSlots", "table:jobs"),
            // So do a tenant's idempotency keys (idem#<hash>).
            Map.entry("dev/punctual/core/tenant/IdempotencyRepository", "table:jobs"),
            Map.entry("dev/punctual/core/run/RunRepository", "table:runs"),
            // The queries behind RunRepository's reads (the table, the due and dead-letter indexes; runs by key).
            Map.entry("dev/punctual/core/run/RunQueries", "table:runs"),
            // The runs table's byOwner index (GET /v1/runs) and the page's runs by key.
            Map.entry("dev/punctual/core/run/RunSearch", "table:runs"),
            // Builds the runs table's transaction items (put and update) for RunRepository.
            Map.entry("dev/punctual/core/run/RunWrite", "table:runs"),
            // A job's watch (its expectation's check) is an item of the runs table (<job>#watch).
            Map.entry("dev/punctual/core/run/WatchRepository", "table:runs"),
            Map.entry("dev/punctual/core/binary/BinaryRepository", "table:binaries"),
            Map.entry("dev/punctual/core/sweep/WatermarkRepository", "table:sweeps"),
            Map.entry("dev/punctual/core/binary/ArtifactStore", "bucket:artifacts"),
            Map.entry("dev/punctual/core/notify/EventBusNotices", "bus:runs"));

    /**
     * Adapters of which the code makes one per lane ({@link Resources#runQueues()}): RunQueues a RunQueue for each
     * lane's queue, the sweeper a DeadLetterQueue for each lane's DLQ. Which lane a call reaches is data (a run's lane,
     * the queue a message came from), not code, so each call such an adapter makes is one on every lane's queue.
     */
    static final Map<String, List<String>> LANE_ADAPTER_RESOURCES = Map.of(
            "dev/punctual/core/queue/RunQueue", laneQueues(QueueSpec::name),
            "dev/punctual/core/queue/DeadLetterQueue", laneQueues(QueueSpec::deadLetterName));

    /** Each lane's queue (or DLQ) as a resource key: its name after the prefix. */
    private static List<String> laneQueues(Function<QueueSpec, String> name) {
        Settings settings = Settings.defaults();
        return new Resources(settings)
                .runQueues().stream()
                        .map(spec -> "queue:"
                                + name.apply(spec)
                                        .substring(
                                                settings.deployment().prefix().length() + 1))
                        .toList();
    }

    /** The resource keys of the calls an adapter makes; null for a class that is not an adapter. */
    static List<String> resourcesOf(String adapter) {
        String one = ADAPTER_RESOURCE.get(adapter);
        return one != null ? List.of(one) : LANE_ADAPTER_RESOURCES.get(adapter);
    }

    /** A permission the code needs: an IAM action on a resource key (see {@link #ADAPTER_RESOURCE}). */
    record Permission(String action, String resource) implements Comparable<Permission> {
        public int compareTo(Permission o) {
            return (resource + action).compareTo(o.resource + o.action);
        }

        public String toString() {
            return action + " on " + resource;
        }
    }

    private record Method(String owner, String name, String desc) {}

    private record Call(String caller, String owner, String name) {}

    /** A method that names an index on the query it builds ({@code QueryRequest.Builder.indexName}). */
    private record NamesIndex() {}

    private static final String QUERY_BUILDER = "software/amazon/awssdk/services/dynamodb/model/QueryRequest$Builder";

    /** Resource key suffix of a table's indexes: a query of an index is authorized on {@code <table arn>/index/*}. */
    static final String INDEXES = "/index";

    private final Map<String, Map<String, List<Object>>> classes = new HashMap<>();

    /** Every permission reachable from the public methods of {@code entryClasses} (and the named methods). */
    Set<Permission> derive(List<Class<?>> entryClasses, Set<String> onlyMethods) throws IOException {
        Deque<Method> work = new ArrayDeque<>();
        for (Class<?> c : entryClasses) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (onlyMethods.isEmpty()
                        ? java.lang.reflect.Modifier.isPublic(m.getModifiers())
                        : onlyMethods.contains(m.getName())) {
                    work.add(new Method(internal(c), m.getName(), org.objectweb.asm.Type.getMethodDescriptor(m)));
                }
            }
        }
        Set<Method> seen = new HashSet<>();
        // Each SDK call, and whether the method making it names an index (for a query: which resource it needs).
        Map<Call, Set<Boolean>> sdkCalls = new HashMap<>();
        while (!work.isEmpty()) {
            Method m = work.poll();
            if (!seen.add(m)) {
                continue;
            }
            boolean namesIndex = namesIndex(m);
            for (Object target : calls(m)) {
                if (target instanceof Method callee && callee.owner().startsWith(OURS)) {
                    work.add(callee);
                    // A call through an interface of ours (a port: DispatchStore, RunSender) reaches every class
                    // of ours that implements it.
                    for (String impl : implementations().getOrDefault(callee.owner(), List.of())) {
                        work.add(new Method(impl, callee.name(), callee.desc()));
                    }
                } else if (target instanceof Call c) {
                    sdkCalls.computeIfAbsent(c, k -> new HashSet<>()).add(namesIndex);
                }
            }
        }
        Set<Permission> out = new TreeSet<>();
        sdkCalls.forEach((c, onIndex) -> {
            List<String> resources = resourcesOf(c.caller());
            for (String action : actions(c.owner(), c.name())) {
                if (resources == null) {
                    throw new AssertionError(c.caller() + " calls " + c.owner() + "." + c.name()
                            + " but is not a known adapter: add it to ADAPTER_RESOURCE");
                }
                for (String resource : resources) {
                    if (action.equals("dynamodb:Query")) {
                        // A query of an index is authorized on the index's ARN, one of the table on the table's.
                        onIndex.forEach(i -> out.add(new Permission(action, i ? resource + INDEXES : resource)));
                    } else {
                        out.add(new Permission(action, resource));
                    }
                }
            }
        });
        return out;
    }

    /**
     * Whether {@code m}, or a lambda it builds its request in (a synthetic {@code lambda$} method of its class), names
     * an index on a query: {@code dynamo.query(b -> b.indexName(...)...)}.
     */
    private boolean namesIndex(Method m) throws IOException {
        List<Object> own = calls(m);
        if (own.stream().anyMatch(NamesIndex.class::isInstance)) {
            return true;
        }
        for (Object target : own) {
            if (target instanceof Method lambda
                    && lambda.owner().equals(m.owner())
                    && lambda.name().startsWith("lambda$")
                    && calls(lambda).stream().anyMatch(NamesIndex.class::isInstance)) {
                return true;
            }
        }
        return false;
    }

    /** The IAM actions an SDK call needs; empty for calls that are not requests (builders, accessors). */
    static List<String> actions(String owner, String name) {
        String type = owner.substring(owner.lastIndexOf('/') + 1);
        return switch (type) {
            case "DynamoDbClient" ->
                switch (name) {
                    case "getItem" -> List.of("dynamodb:GetItem");
                    case "putItem" -> List.of("dynamodb:PutItem");
                    case "updateItem" -> List.of("dynamodb:UpdateItem");
                    case "deleteItem" -> List.of("dynamodb:DeleteItem");
                    case "query", "queryPaginator" -> List.of("dynamodb:Query");
                    case "scan", "scanPaginator" -> List.of("dynamodb:Scan");
                    case "batchGetItem" -> List.of("dynamodb:BatchGetItem");
                    case "batchWriteItem" -> List.of("dynamodb:BatchWriteItem");
                    // PartiQL is authorized statement by statement; ours are UPDATEs only (RunRepository.applyAll).
                    case "batchExecuteStatement" -> List.of("dynamodb:PartiQLUpdate");
                    // A transaction is authorized item by item: see TransactWriteItem$Builder below.
                    case "transactWriteItems", "transactGetItems" -> List.of();
                    default -> throw new AssertionError("unmapped DynamoDB call " + name);
                };
            case "TransactWriteItem$Builder" ->
                switch (name) {
                    case "put" -> List.of("dynamodb:PutItem");
                    case "update" -> List.of("dynamodb:UpdateItem");
                    case "delete" -> List.of("dynamodb:DeleteItem");
                    case "conditionCheck" -> List.of("dynamodb:ConditionCheckItem");
                    default -> List.of();
                };
            case "SqsClient" ->
                switch (name) {
                    case "sendMessage", "sendMessageBatch" -> List.of("sqs:SendMessage");
                    case "receiveMessage" -> List.of("sqs:ReceiveMessage");
                    case "deleteMessage", "deleteMessageBatch" -> List.of("sqs:DeleteMessage");
                    case "changeMessageVisibility", "changeMessageVisibilityBatch" ->
                        List.of("sqs:ChangeMessageVisibility");
                    case "getQueueUrl" -> List.of("sqs:GetQueueUrl");
                    case "getQueueAttributes" -> List.of("sqs:GetQueueAttributes");
                    default -> throw new AssertionError("unmapped SQS call " + name);
                };
            case "S3Client" ->
                switch (name) {
                    // HeadObject is authorized as GetObject; without ListBucket a missing key answers 403, not 404.
                    case "headObject" -> List.of("s3:GetObject", "s3:ListBucket");
                    case "getObject", "getObjectAsBytes" -> List.of("s3:GetObject");
                    case "putObject" -> List.of("s3:PutObject");
                    case "deleteObject" -> List.of("s3:DeleteObject");
                    case "listObjectsV2", "listObjectsV2Paginator" -> List.of("s3:ListBucket");
                    default -> throw new AssertionError("unmapped S3 call " + name);
                };
            case "EventBridgeClient" ->
                switch (name) {
                    case "putEvents" -> List.of("events:PutEvents");
                    // Building and closing a client are no requests.
                    case "builder", "close" -> List.of();
                    default -> throw new AssertionError("unmapped EventBridge call " + name);
                };
            // A presigned URL carries the signer's permissions: the API's role must itself allow the upload.
            case "S3Presigner" ->
                switch (name) {
                    case "presignPutObject" -> List.of("s3:PutObject");
                    case "presignGetObject" -> List.of("s3:GetObject");
                    default -> List.of();
                };
            default -> List.of();
        };
    }

    private Map<String, List<String>> implementations;

    /**
     * The project's interfaces and the classes of ours that implement each, directly, read from the classes on
     * the class path (directories and jars) under {@code dev/punctual/}.
     */
    private Map<String, List<String>> implementations() throws IOException {
        if (implementations != null) {
            return implementations;
        }
        Map<String, List<String>> out = new HashMap<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                try (Stream<Path> files = Files.walk(p)) {
                    for (Path f :
                            files.filter(f -> f.toString().endsWith(".class")).toList()) {
                        try (InputStream in = Files.newInputStream(f)) {
                            addImplementation(out, in);
                        }
                    }
                }
            } else if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
                try (JarFile jar = new JarFile(p.toFile())) {
                    for (JarEntry e : java.util.Collections.list(jar.entries())) {
                        if (e.getName().startsWith(OURS) && e.getName().endsWith(".class")) {
                            try (InputStream in = jar.getInputStream(e)) {
                                addImplementation(out, in);
                            }
                        }
                    }
                }
            }
        }
        implementations = out;
        return out;
    }

    private static void addImplementation(Map<String, List<String>> out, InputStream in) throws IOException {
        ClassReader r = new ClassReader(in);
        if (!r.getClassName().startsWith(OURS) || (r.getAccess() & Opcodes.ACC_INTERFACE) != 0) {
            return;
        }
        for (String itf : r.getInterfaces()) {
            if (itf.startsWith(OURS)) {
                out.computeIfAbsent(itf, k -> new java.util.ArrayList<>()).add(r.getClassName());
            }
        }
    }

    private List<Object> calls(Method m) throws IOException {
        Map<String, List<Object>> byMethod = classes.get(m.owner());
        if (byMethod == null) {
            byMethod = read(m.owner());
            classes.put(m.owner(), byMethod);
        }
        List<Object> found = byMethod.get(m.name() + m.desc());
        if (found == null) {
            // Inherited or an interface method of ours: follow every same-named method of the class.
            found = new java.util.ArrayList<>();
            for (var e : byMethod.entrySet()) {
                if (e.getKey().startsWith(m.name() + "(")) {
                    found.addAll(e.getValue());
                }
            }
        }
        return found;
    }

    private static Map<String, List<Object>> read(String owner) throws IOException {
        Map<String, List<Object>> out = new HashMap<>();
        try (InputStream in = ClassLoader.getSystemResourceAsStream(owner + ".class")) {
            if (in == null) {
                return out;
            }
            new ClassReader(in)
                    .accept(
                            new ClassVisitor(Opcodes.ASM9) {
                                @Override
                                public MethodVisitor visitMethod(
                                        int access, String name, String desc, String sig, String[] ex) {
                                    List<Object> calls = new java.util.ArrayList<>();
                                    out.put(name + desc, calls);
                                    return new MethodVisitor(Opcodes.ASM9) {
                                        @Override
                                        public void visitMethodInsn(int op, String o, String n, String d, boolean itf) {
                                            add(calls, owner, o, n, d);
                                        }

                                        @Override
                                        public void visitInvokeDynamicInsn(
                                                String n, String d, Handle bsm, Object... args) {
                                            // Lambdas and method references: the implementation method is a bootstrap
                                            // argument.
                                            for (Object a : args) {
                                                if (a instanceof Handle h) {
                                                    add(calls, owner, h.getOwner(), h.getName(), h.getDesc());
                                                }
                                            }
                                        }
                                    };
                                }
                            },
                            ClassReader.SKIP_DEBUG);
        }
        return out;
    }

    private static void add(List<Object> calls, String caller, String owner, String name, String desc) {
        if (owner.equals(QUERY_BUILDER) && name.equals("indexName")) {
            calls.add(new NamesIndex());
        } else if (owner.startsWith(OURS)) {
            calls.add(new Method(owner, name, desc));
        } else if (owner.startsWith(SDK)) {
            calls.add(new Call(caller, owner, name));
        }
    }

    private static String internal(Class<?> c) {
        return c.getName().replace('.', '/');
    }
}
