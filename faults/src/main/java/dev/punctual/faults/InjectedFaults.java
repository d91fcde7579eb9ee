package dev.punctual.faults;

import dev.punctual.core.queue.RunMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * The faults an executor process injects into itself ({@code -Dfaults.inject}, see {@link FaultExecutor}), as SDK
 * interceptors on its DynamoDB, SQS and S3 clients. Each announces itself on {@code out} with a {@code FAULT} line
 * naming what it hit, before it acts: a halt leaves no other trace for the harness to find the run by.
 */
final class InjectedFaults {
    final double dynamoErrors;
    private final List<ExecutionInterceptor> dynamo = new ArrayList<>();
    private final List<ExecutionInterceptor> sqs = new ArrayList<>();
    private final List<ExecutionInterceptor> s3 = new ArrayList<>();

    InjectedFaults(Map<String, String> inject, PrintStream out) {
        int haltBeforeResult = Integer.parseInt(inject.getOrDefault("halt-before-result", "0"));
        int haltBeforeDelete = Integer.parseInt(inject.getOrDefault("halt-before-delete", "0"));
        dynamoErrors = Double.parseDouble(inject.getOrDefault("dynamo-errors", "0"));
        int stopAfterClaim = Integer.parseInt(inject.getOrDefault("stop-after-claim", "0"));
        String[] outage = inject.getOrDefault("outage-at-result", "0:0").split(":");
        int outageEvery = Integer.parseInt(outage[0]);
        long outageMillis = Long.parseLong(outage[1]);
        long quietMillis = outage.length > 2 ? Long.parseLong(outage[2]) : 0;
        String failLogUpload = inject.get("fail-log-upload");

        // The outage first: a result write it fails is not counted by a halt.
        if (outageEvery > 0) {
            StoreOutage storeOutage = new StoreOutage(outageEvery, outageMillis, quietMillis, out);
            dynamo.add(storeOutage);
            s3.add(storeOutage);
        }
        if (haltBeforeResult > 0) {
            dynamo.add(new HaltBeforeResult(haltBeforeResult, out));
        }
        if (stopAfterClaim > 0) {
            dynamo.add(new StopAfterClaim(stopAfterClaim, out));
        }
        if (haltBeforeDelete > 0) {
            sqs.add(new HaltBeforeDelete(haltBeforeDelete, out));
        }
        if (failLogUpload != null) {
            s3.add(new FailLogUpload(failLogUpload, out));
        }
    }

    List<ExecutionInterceptor> dynamo() {
        return List.copyOf(dynamo);
    }

    List<ExecutionInterceptor> sqs() {
        return List.copyOf(sqs);
    }

    List<ExecutionInterceptor> s3() {
        return List.copyOf(s3);
    }

    /**
     * The write that records a run's outcome (SUCCEED, FAIL, RELEASE, DIE): it sets finishedAt, fenced on the
     * executor's lease. Told by the attributes it names (the table's schema), not by its expressions' wording.
     */
    static boolean isResult(UpdateItemRequest u) {
        Map<String, String> names =
                u.expressionAttributeNames() == null ? new HashMap<>() : u.expressionAttributeNames();
        return names.containsValue("finishedAt")
                && names.containsValue("leaseOwner")
                && !isClaim(names, u.updateExpression());
    }

    /**
     * The claim: the only write that sets leaseOwner (a withdrawn claim removes it), on its own (an UpdateItem) or in
     * a transaction (under an overlap policy).
     */
    static boolean isClaim(Map<String, String> names, String update) {
        if (names == null || update == null) {
            return false;
        }
        int remove = update.indexOf(" REMOVE ");
        String set = remove < 0 ? update : update.substring(0, remove);
        return names.entrySet().stream()
                .anyMatch(e -> e.getValue().equals("leaseOwner") && set.contains(e.getKey() + " = "));
    }

    private static final Pattern KEY_PARAMETER = Pattern.compile("\"(jobId|runId)\" = \\?");

    /**
     * The run a claim written as a PartiQL statement (RunWrite.statement) claims, by its key's parameters; null for
     * any other statement. A claim is the only write that sets leaseOwner.
     */
    static Map<String, AttributeValue> claimKey(String text, List<AttributeValue> parameters) {
        int where = text.indexOf(" WHERE ");
        if (where < 0 || !text.substring(0, where).contains("SET \"leaseOwner\" = ?")) {
            return null;
        }
        return statementKey(text, parameters);
    }

    /**
     * The run whose outcome a PartiQL statement records (as {@link #isResult}: it sets finishedAt, fenced on the
     * lease, and is not a claim); null for any other statement.
     */
    static Map<String, AttributeValue> resultKey(String text, List<AttributeValue> parameters) {
        int where = text.indexOf(" WHERE ");
        if (where < 0
                || !text.substring(0, where).contains("SET \"finishedAt\" = ?")
                || !text.contains("\"leaseOwner\"")
                || claimKey(text, parameters) != null) {
            return null;
        }
        return statementKey(text, parameters);
    }

    /**
     * "jobId runId" of each run whose outcome {@code r} writes: an UpdateItem on its own, or the statements of a
     * batch the executor's shared writes made of it and other runs' writes (under load, most outcomes go so).
     */
    static List<String> resultRuns(SdkRequest r) {
        if (r instanceof UpdateItemRequest u && isResult(u)) {
            return List.of(run(u.key()));
        }
        if (r instanceof BatchExecuteStatementRequest b) {
            return b.statements().stream()
                    .map(st -> resultKey(st.statement(), st.parameters()))
                    .filter(key -> key != null)
                    .map(InjectedFaults::run)
                    .toList();
        }
        return List.of();
    }

    /** The key of the run a statement's WHERE clause names by its parameters; null when it names no run. */
    private static Map<String, AttributeValue> statementKey(String text, List<AttributeValue> parameters) {
        int where = text.indexOf(" WHERE ");
        Map<String, AttributeValue> key = new HashMap<>();
        Matcher m = KEY_PARAMETER.matcher(text);
        m.region(where, text.length());
        while (m.find()) {
            int index = (int) text.substring(0, m.end())
                            .chars()
                            .filter(ch -> ch == '?')
                            .count()
                    - 1;
            key.putIfAbsent(m.group(1), parameters.get(index));
        }
        return key.size() == 2 ? key : null;
    }

    static void announce(PrintStream out, String fault) {
        out.println("FAULT " + fault);
        out.flush();
    }

    private static String run(Map<String, AttributeValue> key) {
        return key.get("jobId").s() + " " + key.get("runId").s();
    }

    /**
     * At every Nth result write, every DynamoDB call and S3 upload of this process fails for a while. One instance
     * sits on both clients, so both stores are out at once, as when the network goes. None starts within
     * {@code quiet} of the last one's end: the result writes that failed in an outage are tried again as it ends, and
     * their count could start the next one at once, making two outages one twice as long (longer than the lease the
     * scenario says the executor keeps; found by CI's scenario 14, an executor out of its store for over 4 s).
     */
    static final class StoreOutage implements ExecutionInterceptor {
        private final int every;
        private final long millis;
        private final long quiet;
        private final PrintStream out;
        private final AtomicInteger resultWrites = new AtomicInteger();
        private final AtomicLong until = new AtomicLong();

        StoreOutage(int every, long millis, long quiet, PrintStream out) {
            this.every = every;
            this.millis = millis;
            this.quiet = quiet;
            this.out = out;
        }

        @Override
        public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
            if (System.currentTimeMillis() >= until.get() + quiet
                    && c.request() instanceof UpdateItemRequest u
                    && isResult(u)
                    && resultWrites.incrementAndGet() % every == 0) {
                until.set(System.currentTimeMillis() + millis);
                announce(out, "outage " + run(u.key()));
            }
            if (System.currentTimeMillis() < until.get()) {
                if (c.request() instanceof DynamoDbRequest) {
                    throw SdkClientException.create("injected: DynamoDB unreachable (outage)");
                }
                if (c.request() instanceof PutObjectRequest) {
                    throw SdkClientException.create("injected: S3 unreachable (outage)");
                }
            }
        }
    }

    /** Halts the process, as kill -9 would, right before the Nth request of a kind: the request never leaves. */
    abstract static class HaltBefore implements ExecutionInterceptor {
        private final String fault;
        private final int nth;
        private final PrintStream out;
        private final AtomicInteger seen = new AtomicInteger();

        HaltBefore(String fault, int nth, PrintStream out) {
            this.fault = fault;
            this.nth = nth;
            this.out = out;
        }

        /** "jobId runId" of each counted thing the request holds (none: it does not count). */
        abstract List<String> counted(SdkRequest r);

        @Override
        public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
            for (String run : counted(c.request())) {
                if (seen.incrementAndGet() == nth) {
                    announce(out, fault + " " + run);
                    Runtime.getRuntime().halt(FaultExecutor.HALT_STATUS);
                }
            }
        }
    }

    /**
     * The binary has exited; its outcome is not recorded. Each outcome counts, alone or in a batch of statements
     * (counting only UpdateItems, an executor whose outcomes all went in batches never halted: CI's scenario 3).
     */
    static final class HaltBeforeResult extends HaltBefore {
        HaltBeforeResult(int nth, PrintStream out) {
            super("result-lost", nth, out);
        }

        @Override
        List<String> counted(SdkRequest r) {
            return resultRuns(r);
        }
    }

    /**
     * The outcome is recorded; the run's message is not deleted. Deletes go in batches (DeleteMessageBatch, up to ten
     * handled messages): none of the batch is deleted, and the fault names the first one's run. A delete names only
     * a receipt handle, so the bodies received are kept to name the run.
     */
    static final class HaltBeforeDelete extends HaltBefore {
        private final Map<String, String> bodies = new ConcurrentHashMap<>();

        HaltBeforeDelete(int nth, PrintStream out) {
            super("delete-lost", nth, out);
        }

        @Override
        public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
            if (c.response() instanceof ReceiveMessageResponse r) {
                r.messages().forEach(m -> bodies.put(m.receiptHandle(), m.body()));
            }
        }

        @Override
        List<String> counted(SdkRequest r) {
            if (!(r instanceof DeleteMessageBatchRequest b) || b.entries().isEmpty()) {
                return List.of();
            }
            RunMessage m = RunMessage.decode(bodies.get(b.entries().get(0).receiptHandle()));
            return List.of(m.jobId() + " " + m.runId());
        }
    }

    /**
     * SIGSTOPs the process right after its Nth successful claim, before it checks the job and starts the binary;
     * the harness sends SIGCONT. Sent by the process itself so that it lands exactly there.
     */
    static final class StopAfterClaim implements ExecutionInterceptor {
        private final int nth;
        private final PrintStream out;
        private final AtomicInteger claims = new AtomicInteger();

        StopAfterClaim(int nth, PrintStream out) {
            this.nth = nth;
            this.out = out;
        }

        @Override
        public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
            Map<String, AttributeValue> claimed = null;
            if (c.request() instanceof UpdateItemRequest u
                    && isClaim(u.expressionAttributeNames(), u.updateExpression())) {
                claimed = u.key();
            } else if (c.request() instanceof TransactWriteItemsRequest tw) {
                claimed = tw.transactItems().stream()
                        .map(TransactWriteItem::update)
                        .filter(u -> u != null && isClaim(u.expressionAttributeNames(), u.updateExpression()))
                        .map(Update::key)
                        .findFirst()
                        .orElse(null);
            } else if (c.request() instanceof BatchExecuteStatementRequest b
                    && c.response() instanceof BatchExecuteStatementResponse r) {
                // Claims shared with other runs' writes in one batch (under load): the first one that won.
                for (int i = 0; i < b.statements().size() && claimed == null; i++) {
                    if (i < r.responses().size() && r.responses().get(i).error() == null) {
                        BatchStatementRequest st = b.statements().get(i);
                        claimed = claimKey(st.statement(), st.parameters());
                    }
                }
            }
            if (claimed != null && claims.incrementAndGet() == nth) {
                announce(out, "frozen-after-claim " + run(claimed));
                try {
                    new ProcessBuilder(
                                    "kill",
                                    "-STOP",
                                    Long.toString(ProcessHandle.current().pid()))
                            .start()
                            .waitFor();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Fails every upload whose key ends with a suffix, as if S3 were unreachable for it. */
    static final class FailLogUpload implements ExecutionInterceptor {
        private final String suffix;
        private final PrintStream out;

        FailLogUpload(String suffix, PrintStream out) {
            this.suffix = suffix;
            this.out = out;
        }

        @Override
        public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
            if (c.request() instanceof PutObjectRequest put && put.key().endsWith(suffix)) {
                announce(out, "log-upload-failed " + put.key());
                throw SdkClientException.create("injected: S3 unreachable for " + put.key());
            }
        }
    }
}
