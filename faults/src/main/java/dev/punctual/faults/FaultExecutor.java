package dev.punctual.faults;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.queue.RunMessage;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * One executor process of the fault suite: a {@link Punctual} on the emulator endpoints given as arguments, with the
 * suite's short timings, running {@link Punctual#startExecutor} until it is signalled. SIGTERM runs the shutdown hook,
 * which closes the pool (graceful drain); SIGKILL, SIGSTOP and the injected crashes below are the faults.
 *
 * <pre>
 * java dev.punctual.faults.FaultExecutor DYNAMODB_URL SQS_URL S3_URL PREFIX EXECUTOR_ID WORK_DIR
 *   -Dfaults.settings=key=value,...   overrides of {@link FaultSettings}
 *   -Dfaults.inject=...               comma-separated faults:
 *      halt-before-result=N   halt (as kill -9 would) right before the Nth DynamoDB write of a run's result
 *      halt-before-delete=N   halt right before the Nth SQS DeleteMessage (the result is already written)
 *      dynamo-errors=R        answer a fraction R of DynamoDB calls with throttling / 500 / 503 (nothing sent)
 *      fail-log-upload=SUFFIX fail every S3 PutObject whose key ends with SUFFIX (e.g. "/attempt-2.log")
 *      stop-after-claim=N     SIGSTOP itself right after its Nth claim transaction succeeded (before it reads the
 *                             run back and starts the binary); the harness sends SIGCONT
 *      outage-at-result=N:MS  at every Nth write of a run's result, every DynamoDB call and S3 upload of this
 *                             process fails for MS milliseconds (a store outage around the result write)
 * </pre>
 *
 * It prints {@code READY <pid>} once polling, {@code FAULT ...} lines naming the run a crash hit, and
 * {@code DRAINED} when a graceful stop is over.
 */
public final class FaultExecutor {
    /** Exit status of an injected crash: what a shell reports for a process killed by SIGKILL. */
    public static final int HALT_STATUS = 137;

    private FaultExecutor() {}

    public static void main(String[] args) throws Exception {
        URI dynamoUri = URI.create(args[0]);
        URI sqsUri = URI.create(args[1]);
        URI s3Uri = URI.create(args[2]);
        String prefix = args[3];
        String executorId = args[4];
        Path work = Path.of(args[5]);
        Settings settings = FaultSettings.build(prefix, FaultSettings.decode(System.getProperty("faults.settings")));
        Map<String, String> inject = FaultSettings.decode(System.getProperty("faults.inject"));
        PrintStream out = System.out;

        AwsClients.Target t = AwsClients.Target.emulators(dynamoUri, sqsUri, s3Uri);
        int haltBeforeResult = Integer.parseInt(inject.getOrDefault("halt-before-result", "0"));
        int haltBeforeDelete = Integer.parseInt(inject.getOrDefault("halt-before-delete", "0"));
        double dynamoErrors = Double.parseDouble(inject.getOrDefault("dynamo-errors", "0"));

        AtomicInteger results = new AtomicInteger();
        AtomicInteger claims = new AtomicInteger();
        int stopAfterClaim = Integer.parseInt(inject.getOrDefault("stop-after-claim", "0"));
        String[] outage = inject.getOrDefault("outage-at-result", "0:0").split(":");
        int outageEvery = Integer.parseInt(outage[0]);
        long outageMillis = Long.parseLong(outage[1]);
        AtomicInteger resultWrites = new AtomicInteger();
        java.util.concurrent.atomic.AtomicLong outageUntil = new java.util.concurrent.atomic.AtomicLong();
        DynamoDbClient dynamo = DynamoDbClient.builder()
                .httpClient(new FaultyHttpClient(UrlConnectionHttpClient.create(), () -> dynamoErrors))
                .endpointOverride(dynamoUri)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                        if (outageEvery > 0
                                && System.currentTimeMillis() >= outageUntil.get()
                                && c.request() instanceof UpdateItemRequest u
                                && isResult(u)
                                && resultWrites.incrementAndGet() % outageEvery == 0) {
                            outageUntil.set(System.currentTimeMillis() + outageMillis);
                            out.println("FAULT outage " + u.key().get("jobId").s() + " "
                                    + u.key().get("runId").s());
                            out.flush();
                        }
                        if (System.currentTimeMillis() < outageUntil.get()) {
                            throw SdkClientException.create("injected: DynamoDB unreachable (outage)");
                        }
                        if (haltBeforeResult > 0
                                && c.request() instanceof UpdateItemRequest u
                                && isResult(u)
                                && results.incrementAndGet() == haltBeforeResult) {
                            out.println(
                                    "FAULT result-lost " + u.key().get("jobId").s() + " "
                                            + u.key().get("runId").s());
                            out.flush();
                            Runtime.getRuntime().halt(HALT_STATUS);
                        }
                    }

                    @Override
                    public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
                        if (stopAfterClaim > 0 && c.request() instanceof TransactWriteItemsRequest tw) {
                            Update claim = tw.transactItems().stream()
                                    .map(TransactWriteItem::update)
                                    .filter(u ->
                                            u != null && u.updateExpression().contains("#a = #a + :one"))
                                    .findFirst()
                                    .orElse(null);
                            if (claim != null && claims.incrementAndGet() == stopAfterClaim) {
                                out.println("FAULT frozen-after-claim "
                                        + claim.key().get("jobId").s() + " "
                                        + claim.key().get("runId").s());
                                out.flush();
                                try {
                                    new ProcessBuilder(
                                                    "kill",
                                                    "-STOP",
                                                    Long.toString(ProcessHandle.current()
                                                            .pid()))
                                            .start()
                                            .waitFor();
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                        }
                    }
                }))
                .build();

        Map<String, String> bodies = new ConcurrentHashMap<>();
        AtomicInteger deletes = new AtomicInteger();
        SqsClient sqs = SqsClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(sqsUri)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
                        if (haltBeforeDelete > 0 && c.response() instanceof ReceiveMessageResponse r) {
                            r.messages().forEach(m -> bodies.put(m.receiptHandle(), m.body()));
                        }
                    }

                    @Override
                    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                        if (haltBeforeDelete > 0
                                && c.request() instanceof DeleteMessageRequest d
                                && deletes.incrementAndGet() == haltBeforeDelete) {
                            RunMessage m = RunMessage.decode(bodies.get(d.receiptHandle()));
                            out.println("FAULT delete-lost " + m.jobId() + " " + m.runId());
                            out.flush();
                            Runtime.getRuntime().halt(HALT_STATUS);
                        }
                    }
                }))
                .build();

        String failLogUpload = inject.get("fail-log-upload");
        S3Client s3 = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(s3Uri)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .forcePathStyle(true)
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                        if (c.request() instanceof PutObjectRequest && System.currentTimeMillis() < outageUntil.get()) {
                            throw SdkClientException.create("injected: S3 unreachable (outage)");
                        }
                        if (failLogUpload != null
                                && c.request() instanceof PutObjectRequest put
                                && put.key().endsWith(failLogUpload)) {
                            out.println("FAULT log-upload-failed " + put.key());
                            out.flush();
                            throw SdkClientException.create("injected: S3 unreachable for " + put.key());
                        }
                    }
                }))
                .build();
        Punctual p = new Punctual(dynamo, sqs, s3, AwsClients.presigner(t), settings, Clock.systemUTC(), null);
        ExecutorPool pool = p.startExecutor(executorId, work, 1);
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            pool.close();
            out.println("DRAINED");
            out.flush();
        }));
        out.println("READY " + ProcessHandle.current().pid());
        out.flush();
        forever.await();
    }

    /** The write that records a run's outcome ({@code RunRepository.finish}): it sets finishedAt, fenced on me. */
    static boolean isResult(UpdateItemRequest u) {
        Map<String, String> names =
                u.expressionAttributeNames() == null ? new HashMap<>() : u.expressionAttributeNames();
        return names.containsValue("finishedAt")
                && names.containsValue("leaseOwner")
                && u.conditionExpression() != null
                && u.conditionExpression().contains(":me");
    }
}
