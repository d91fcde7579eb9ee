package dev.punctual.core.queue;

import dev.punctual.core.infra.QueueSpec;
import java.util.List;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The run queue's dead-letter queue: messages SQS moved there after {@link QueueSpec#maxReceiveCount()} receives.
 * The sweeper drains it, so a run whose message died does not stay unfinished without anyone knowing.
 */
public final class DeadLetterQueue {
    private final SqsClient sqs;
    private final String queueName;
    private volatile String url;

    public DeadLetterQueue(SqsClient sqs, QueueSpec spec) {
        this.sqs = sqs;
        this.queueName = spec.deadLetterName();
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

    /** Up to {@code max} (≤ 10) messages, without waiting; each hidden for {@code visibilitySeconds}. */
    public List<Message> receive(int max, int visibilitySeconds) {
        return sqs.receiveMessage(b -> b.queueUrl(url())
                        .maxNumberOfMessages(max)
                        .waitTimeSeconds(0)
                        .visibilityTimeout(visibilitySeconds))
                .messages();
    }

    public void delete(String receiptHandle) {
        sqs.deleteMessage(b -> b.queueUrl(url()).receiptHandle(receiptHandle));
    }
}
