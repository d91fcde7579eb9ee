package dev.punctual.bench.dispatch;

import dev.punctual.core.queue.RunMessage;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * When each run's message was in SQS, on the scenario's clock: read from every SendMessageBatch the SQS client
 * completes, each entry the queue accepted (its body names the run and its due time).
 */
final class SendLog implements ExecutionInterceptor {
    /** One accepted message: its run, due time, and the instant the send returned. */
    record Sent(String runId, Instant due, Instant at) {}

    private final Clock clock;
    private final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();

    SendLog(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof SendMessageBatchRequest req)
                || !(context.response() instanceof SendMessageBatchResponse res)) {
            return;
        }
        Instant at = clock.instant();
        Map<String, String> bodies = new HashMap<>();
        for (SendMessageBatchRequestEntry e : req.entries()) {
            bodies.put(e.id(), e.messageBody());
        }
        res.successful().forEach(ok -> {
            RunMessage m = RunMessage.decode(bodies.get(ok.id()));
            sent.add(new Sent(m.jobId() + "/" + m.runId(), m.scheduledAt(), at));
        });
    }

    /** Everything logged so far, and the log emptied. */
    List<Sent> drain() {
        List<Sent> out = new java.util.ArrayList<>();
        Sent s;
        while ((s = sent.poll()) != null) {
            out.add(s);
        }
        return out;
    }
}
