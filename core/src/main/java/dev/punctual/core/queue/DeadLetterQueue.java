package dev.punctual.core.queue;

import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.QueueSpec;
import java.util.List;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The run queue's dead-letter queue: messages SQS moved there after {@link QueueSpec#maxReceiveCount()} receives.
 * The sweeper drains it, so a run whose message died does not stay unfinished without anyone knowing.
 */
public final class DeadLetterQueue {
    private final SqsClient sqs;
    private final String queueName;
    private final Priority lane;
    private volatile String url;

    /** The dead-letter queue of {@code lane}, whose queue is {@code spec}. */
    public DeadLetterQueue(SqsClient sqs, QueueSpec spec, Priority lane) {
        this.sqs = sqs;
        this.queueName = spec.deadLetterName();
        this.lane = lane;
    }

    public String name() {
        return queueName;
    }

    public String url() {
        String u = url;
        if (u == null) {
            u = sqs.getQueueUrl(b -> b.queueName(queueName)).queueUrl();
            url = u;
        }
        return u;
    }

    /**
     * Up to {@code max} (≤ 10) messages, without waiting; each hidden for {@code visibilitySeconds}, and each
     * carrying the lane whose queue dead-lettered it.
     */
    public List<Delivery> receive(int max, int visibilitySeconds) {
        return sqs
                .receiveMessage(b -> b.queueUrl(url())
                        .maxNumberOfMessages(max)
                        .waitTimeSeconds(0)
                        .visibilityTimeout(visibilitySeconds))
                .messages()
                .stream()
                .map(m -> Delivery.of(m, lane))
                .toList();
    }

    public void delete(String receiptHandle) {
        sqs.deleteMessage(b -> b.queueUrl(url()).receiptHandle(receiptHandle));
    }
}
