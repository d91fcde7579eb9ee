package dev.punctual.core.queue;

import dev.punctual.core.firing.Priority;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * A run message as an executor received it: its body ({@link RunMessage#decode}), the handle that deletes it or
 * hides it again, the lane it came from, and how many times SQS has delivered it (this time included; 1 where SQS
 * did not say). What the executor knows of SQS ends here.
 */
public record Delivery(String messageId, String receiptHandle, String body, Priority lane, int receives) {

    /** {@code m} as received from {@code lane}'s queue. */
    public static Delivery of(Message m, Priority lane) {
        return new Delivery(m.messageId(), m.receiptHandle(), m.body(), lane, receivesOf(m));
    }

    private static int receivesOf(Message m) {
        String n = m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
        try {
            return n == null ? 1 : Integer.parseInt(n);
        } catch (NumberFormatException e) {
            return 1;
        }
    }
}
