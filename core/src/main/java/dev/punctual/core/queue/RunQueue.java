package dev.punctual.core.queue;

import dev.punctual.core.infra.QueueSpec;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/** The run queue. Each message is delayed so that it becomes visible shortly before its run is due. */
public final class RunQueue implements RunSender {
    private static final System.Logger LOG = System.getLogger(RunQueue.class.getName());
    public static final int MAX_BATCH = 10;
    public static final int MAX_DELAY_SECONDS = 900;

    private final SqsClient sqs;
    private final String queueName;
    private volatile String url;
    /** Made at the first delete: only an executor deletes. */
    private PendingDeletes deletes;

    private final Duration deleteLinger;

    public RunQueue(SqsClient sqs, QueueSpec spec, String urlOverride) {
        this(sqs, spec, urlOverride, PendingDeletes.MIN_LINGER);
    }

    /** {@code deleteLinger}: how long a delete may wait for others to share its call ({@link #deleteLinger}). */
    public RunQueue(SqsClient sqs, QueueSpec spec, String urlOverride, Duration deleteLinger) {
        this.sqs = sqs;
        this.queueName = spec.name();
        this.url = urlOverride == null || urlOverride.isBlank() ? null : urlOverride;
        this.deleteLinger = deleteLinger;
    }

    /** The delete linger that suits executors with this lease and heartbeat (see {@code PendingDeletes}). */
    public static Duration deleteLinger(Duration lease, Duration heartbeat) {
        return PendingDeletes.lingerFor(lease, heartbeat);
    }

    public String url() {
        String u = url;
        if (u != null) {
            return u;
        }
        // Resolved once: a dispatch's first sends come from many threads at once.
        synchronized (this) {
            if (url == null) {
                url = sqs.getQueueUrl(b -> b.queueName(queueName)).queueUrl();
            }
            return url;
        }
    }

    /**
     * How long before its run's due instant a message becomes visible (at least; at most a second more). Measured on
     * the emulators (`bin/bench compare`, `dev.punctual.timing`): a message delayed to its due second was received a
     * median 78 ms after it, as the queue looks at delayed messages on a timer of its own. Delivered early, the
     * executor reads the job meanwhile and waits out the rest: neither the delivery nor that read lies between the
     * due instant and the start.
     */
    public static final Duration EARLY_DELIVERY = Duration.ofSeconds(1);

    /**
     * The delay that makes a message visible {@link #EARLY_DELIVERY} (plus under a second, as it is rounded down)
     * before {@code due}: never late. The executor waits out the rest before it claims the run.
     */
    public static int delaySeconds(Instant due, Instant now) {
        long ms = Duration.between(now, due).minus(EARLY_DELIVERY).toMillis();
        return (int) Math.max(0, Math.min(MAX_DELAY_SECONDS, ms / 1000));
    }

    @Override
    public Set<Integer> sendBatch(List<RunMessage> messages, Instant now) {
        if (messages.size() > MAX_BATCH) {
            throw new IllegalArgumentException("at most " + MAX_BATCH + " messages per batch");
        }
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            RunMessage m = messages.get(i);
            entries.add(SendMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .messageBody(m.encode())
                    .delaySeconds(delaySeconds(m.scheduledAt(), now))
                    .build());
        }
        SendMessageBatchResponse r = sqs.sendMessageBatch(b -> b.queueUrl(url()).entries(entries));
        Set<Integer> ok = new HashSet<>();
        r.successful().forEach(e -> ok.add(Integer.parseInt(e.id())));
        return ok;
    }

    public List<Message> receive(int max, int waitSeconds, int visibilitySeconds) {
        return sqs.receiveMessage(b -> b.queueUrl(url())
                        .maxNumberOfMessages(max)
                        .waitTimeSeconds(waitSeconds)
                        .visibilityTimeout(visibilitySeconds)
                        .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                .messages();
    }

    /**
     * Deletes a handled message: sent with up to nine others, within the delete linger (see {@code PendingDeletes}
     * why nothing waits for it); {@link #flushDeletes} sends what is pending at once.
     */
    public void delete(String receiptHandle) {
        pendingDeletes().add(receiptHandle);
    }

    /** Sends the deletes still pending, and returns once they are sent: before an executor stops. */
    public void flushDeletes() {
        pendingDeletes().flush();
    }

    private synchronized PendingDeletes pendingDeletes() {
        if (deletes == null) {
            deletes = new PendingDeletes(this::deleteBatch, deleteLinger);
        }
        return deletes;
    }

    private void deleteBatch(List<String> receiptHandles) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < receiptHandles.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .receiptHandle(receiptHandles.get(i))
                    .build());
        }
        DeleteMessageBatchResponse r =
                sqs.deleteMessageBatch(b -> b.queueUrl(url()).entries(entries));
        if (!r.failed().isEmpty()) {
            LOG.log(
                    Level.WARNING,
                    r.failed().size() + " of " + entries.size() + " handled messages were not deleted ("
                            + r.failed().get(0).message() + "); they will come back once");
        }
    }

    /** Makes the message visible again after {@code seconds}: the retry delay, or a lease extension. */
    public void changeVisibility(String receiptHandle, int seconds) {
        sqs.changeMessageVisibility(
                b -> b.queueUrl(url()).receiptHandle(receiptHandle).visibilityTimeout(seconds));
    }

    /** The queue's messages as SQS counts them (approximately): visible, delayed (not yet due), in flight. */
    public record Depth(long visible, long delayed, long inFlight) {}

    public Depth depth() {
        Map<QueueAttributeName, String> a = sqs.getQueueAttributes(b -> b.queueUrl(url())
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return new Depth(
                count(a, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES),
                count(a, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED),
                count(a, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    private static long count(Map<QueueAttributeName, String> attributes, QueueAttributeName name) {
        String v = attributes.get(name);
        return v == null ? 0 : Long.parseLong(v);
    }
}
