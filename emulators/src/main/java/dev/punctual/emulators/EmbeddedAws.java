package dev.punctual.emulators;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.elasticmq.NodeAddress;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.gaul.s3proxy.CrossOriginResourceSharing;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/**
 * DynamoDB Local, ElasticMQ (SQS) and S3Proxy (S3), started in this JVM on free loopback ports. This module knows
 * nothing of the scheduler: its users create their tables, queues and bucket (core's {@code Provisioner}). With a
 * data directory, DynamoDB and S3 keep their state across restarts; ElasticMQ keeps queues only in memory.
 */
public final class EmbeddedAws implements AutoCloseable {
    public static final String ACCESS_KEY = "test";
    public static final String SECRET_KEY = "test";
    public static final String REGION = "us-east-1";
    /** Every emulator listens on this address only: they have no real authentication. */
    public static final String LOOPBACK = "127.0.0.1";

    private final DynamoDBProxyServer dynamo;
    private final SQSRestServer sqs;
    private final S3Proxy s3;
    /**
     * A page served on loopback (the local runner's dashboard) may PUT to a presigned URL, as S3 allows when the
     * bucket's CORS rules say so (Terraform sets the same for the API's origin). The signature still decides.
     */
    private static final CrossOriginResourceSharing BROWSER_UPLOADS = new CrossOriginResourceSharing(
            List.of("https?://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?"),
            List.of("PUT"),
            List.of("content-type", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm", "x-amz-content-sha256"),
            List.of("ETag"),
            "false");

    private final URI dynamoUri;
    private final URI sqsUri;
    private final URI s3Uri;

    private EmbeddedAws(
            DynamoDBProxyServer dynamo, URI dynamoUri, SQSRestServer sqs, URI sqsUri, S3Proxy s3, URI s3Uri) {
        this.dynamo = dynamo;
        this.sqs = sqs;
        this.s3 = s3;
        this.dynamoUri = dynamoUri;
        this.sqsUri = sqsUri;
        this.s3Uri = s3Uri;
    }

    /** Starts all three; {@code dataDir} null means in memory. Ports 0 mean "any free port". */
    public static EmbeddedAws start(Path dataDir, int dynamoPort, int sqsPort, int s3Port) throws Exception {
        int dp = dynamoPort == 0 ? freePort() : dynamoPort;
        List<String> args = new ArrayList<>(List.of("-port", Integer.toString(dp), "-disableTelemetry"));
        if (dataDir == null) {
            args.add("-inMemory");
        } else {
            Path dir = Files.createDirectories(dataDir.resolve("dynamodb"));
            // sharedDb: one database whatever region or credentials a client uses, as the emulated account.
            args.addAll(List.of("-dbPath", dir.toString(), "-sharedDb"));
        }
        DynamoDBProxyServer dynamo = ServerRunner.createServerFromCommandLineArgs(args.toArray(String[]::new));
        bindToLoopback(dynamo);
        dynamo.start();

        int qp = sqsPort == 0 ? freePort() : sqsPort;
        SQSRestServer sqs = SQSRestServerBuilder.withInterface(LOOPBACK)
                .withPort(qp)
                .withServerAddress(new NodeAddress("http", LOOPBACK, qp, ""))
                .start();
        sqs.waitUntilStarted();

        var blobs = dataDir == null
                ? new TransientNio2BlobStore()
                : new FilesystemNio2BlobStore(
                        Files.createDirectories(dataDir.resolve("s3")).toString());
        S3Proxy s3 = S3Proxy.builder()
                .blobStore(blobs)
                // S3Proxy listens on the endpoint's host.
                .endpoint(URI.create("http://" + LOOPBACK + ":" + s3Port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .corsRules(BROWSER_UPLOADS)
                .build();
        s3.start();
        while (!"STARTED".equals(s3.getState())) {
            Thread.onSpinWait();
        }
        return new EmbeddedAws(
                dynamo,
                URI.create("http://" + LOOPBACK + ":" + dp),
                sqs,
                URI.create("http://" + LOOPBACK + ":" + qp),
                s3,
                URI.create("http://" + LOOPBACK + ":" + s3.getPort()));
    }

    public static EmbeddedAws startInMemory() throws Exception {
        return start(null, 0, 0, 0);
    }

    public URI dynamodbEndpoint() {
        return dynamoUri;
    }

    public URI sqsEndpoint() {
        return sqsUri;
    }

    public URI s3Endpoint() {
        return s3Uri;
    }

    private static EmbeddedAws shared;

    /**
     * One emulator set per JVM, shared by every test in it (starting them costs seconds); each test isolates itself
     * with resources of its own. Stopped when the JVM exits.
     */
    public static synchronized EmbeddedAws shared() {
        if (shared == null) {
            try {
                shared = startInMemory();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the embedded emulators", e);
            }
            EmbeddedAws started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // the JVM is exiting
                }
            }));
        }
        return shared;
    }

    /**
     * Points every AWS SDK client created after this call in this JVM at the emulators, through the SDK's own
     * system properties (the same ones the {@code AWS_ENDPOINT_URL_*} variables set).
     */
    public void exportToSystemProperties() {
        System.setProperty("aws.endpointUrlDynamodb", dynamoUri.toString());
        System.setProperty("aws.endpointUrlSqs", sqsUri.toString());
        System.setProperty("aws.endpointUrlS3", s3Uri.toString());
        System.setProperty("aws.region", REGION);
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET_KEY);
    }

    /**
     * Quarkus configuration pointing the Quarkiverse DynamoDB, SQS and S3 clients at the emulators (those clients
     * read their endpoint, region and credentials from their own configuration).
     */
    public java.util.Map<String, String> quarkusConfig() {
        java.util.Map<String, String> c = new java.util.LinkedHashMap<>();
        for (var e : java.util.Map.of("dynamodb", dynamoUri, "sqs", sqsUri, "s3", s3Uri)
                .entrySet()) {
            String p = "quarkus." + e.getKey() + ".";
            c.put(p + "endpoint-override", e.getValue().toString());
            c.put(p + "aws.region", REGION);
            c.put(p + "aws.credentials.type", "static");
            c.put(p + "aws.credentials.static-provider.access-key-id", ACCESS_KEY);
            c.put(p + "aws.credentials.static-provider.secret-access-key", SECRET_KEY);
        }
        c.put("punctual.s3-path-style", "true");
        return c;
    }

    /** The same, as environment variables for a separate process (an executor started on its own). */
    public List<String> environmentExports() {
        return List.of(
                "AWS_ENDPOINT_URL_DYNAMODB=" + dynamoUri,
                "AWS_ENDPOINT_URL_SQS=" + sqsUri,
                "AWS_ENDPOINT_URL_S3=" + s3Uri,
                "AWS_REGION=" + REGION,
                "AWS_ACCESS_KEY_ID=" + ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY=" + SECRET_KEY);
    }

    @Override
    public void close() throws Exception {
        s3.stop();
        sqs.stopAndWait();
        dynamo.stop();
    }

    /**
     * DynamoDB Local has no option for the address it listens on: its Jetty server is made with {@code new
     * Server(port)}, which listens on every interface, so anyone on the network could read and write the tables.
     * Its connector is set to the loopback address before it starts. Should a future DynamoDB Local hide the
     * server differently, this fails rather than quietly listening on every interface again.
     */
    static void bindToLoopback(DynamoDBProxyServer dynamo) {
        try {
            Field f = DynamoDBProxyServer.class.getDeclaredField("server");
            f.setAccessible(true);
            Server server = (Server) f.get(dynamo);
            Connector[] connectors = server.getConnectors();
            if (connectors.length == 0) {
                throw new IllegalStateException("DynamoDB Local's server has no connector");
            }
            for (Connector c : connectors) {
                ((ServerConnector) c).setHost(LOOPBACK);
            }
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot bind DynamoDB Local to " + LOOPBACK + " only", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByAddress(LOOPBACK, new byte[] {127, 0, 0, 1}))) {
            return s.getLocalPort();
        }
    }
}
