package dev.punctual.faults;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.AwsClients;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One executor process of the fault suite: a {@link Punctual} on the emulator endpoints given as arguments, with the
 * suite's short timings, running {@link Punctual#startExecutor} until it is signalled. SIGTERM runs the shutdown hook,
 * which closes the pool (graceful drain); SIGKILL, SIGSTOP and the injected crashes below are the faults.
 *
 * <pre>
 * java dev.punctual.faults.FaultExecutor DYNAMODB_URL SQS_URL S3_URL PREFIX EXECUTOR_ID WORK_DIR
 *   -Dfaults.settings=key=value,...   overrides of {@link FaultSettings}
 *   -Dfaults.inject=...               comma-separated faults ({@link InjectedFaults}):
 *      halt-before-result=N   halt (as kill -9 would) right before the Nth DynamoDB write of a run's result
 *      halt-before-delete=N   halt right before the Nth SQS DeleteMessageBatch (the results are already written)
 *      dynamo-errors=R        answer a fraction R of DynamoDB calls with throttling / 500 / 503 (nothing sent)
 *      fail-log-upload=SUFFIX fail every S3 PutObject whose key ends with SUFFIX (e.g. "/attempt-2.log")
 *      stop-after-claim=N     SIGSTOP itself right after its Nth claim transaction succeeded (before it reads the
 *                             run back and starts the binary); the harness sends SIGCONT
 *      outage-at-result=N:MS[:QUIET]  at every Nth write of a run's result, every DynamoDB call and S3 upload of
 *                             this process fails for MS milliseconds (a store outage around the result write);
 *                             none starts within QUIET ms (default 0) of the last one's end
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
        InjectedFaults faults = new InjectedFaults(inject, out);
        DynamoDbClient dynamo = FaultClients.dynamo(
                t, new FaultyHttpClient(UrlConnectionHttpClient.create(), () -> faults.dynamoErrors), faults.dynamo());
        SqsClient sqs = FaultClients.sqs(t, faults.sqs());
        S3Client s3 = FaultClients.s3(t, faults.s3());
        Punctual p = new Punctual(dynamo, sqs, s3, AwsClients.presigner(t), settings, Clock.systemUTC());
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
}
