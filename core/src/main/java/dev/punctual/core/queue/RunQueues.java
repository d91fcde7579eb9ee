package dev.punctual.core.queue;

import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The run queues of every lane ({@link Priority}): a message is sent to its lane's queue, and deleted from, or
 * hidden in, the queue it was received from. A message received here carries its lane ({@link Delivery}), so that
 * whoever handles it later need not know where it came from.
 */
public final class RunQueues implements RunSender {
    private final Map<Priority, RunQueue> lanes;

    /**
     * The lanes' queues of {@code resources}. {@code normalUrl} (null: looked up by name) is the normal lane's URL;
     * the other lanes' are it with their suffix, as their names are ({@link Resources#runQueue(Priority)}).
     */
    public RunQueues(SqsClient sqs, Resources resources, String normalUrl, Duration deleteLinger) {
        this.lanes = new EnumMap<>(Priority.class);
        boolean given = normalUrl != null && !normalUrl.isBlank();
        for (Priority p : Priority.values()) {
            lanes.put(
                    p,
                    new RunQueue(sqs, resources.runQueue(p), given ? normalUrl + p.queueSuffix : null, deleteLinger));
        }
    }

    public RunQueue lane(Priority p) {
        return lanes.get(p);
    }

    /** Sends each message to its lane, one call a lane that has any (up to ten messages in all). */
    @Override
    public Set<Integer> sendBatch(List<RunMessage> messages, Instant now) {
        Map<RunQueue, List<Integer>> byQueue = new HashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            byQueue.computeIfAbsent(lane(messages.get(i).priority()), q -> new ArrayList<>())
                    .add(i);
        }
        Set<Integer> ok = new HashSet<>();
        for (Map.Entry<RunQueue, List<Integer>> e : byQueue.entrySet()) {
            List<Integer> indexes = e.getValue();
            e.getKey()
                    .sendBatch(indexes.stream().map(messages::get).toList(), now)
                    .forEach(i -> ok.add(indexes.get(i)));
        }
        return ok;
    }

    /** Up to {@code max} messages of lane {@code p}, each knowing its lane. */
    public List<Delivery> receive(Priority p, int max, int waitSeconds, int visibilitySeconds) {
        return lane(p).receive(max, waitSeconds, visibilitySeconds).stream()
                .map(m -> Delivery.of(m, p))
                .toList();
    }

    /** Deletes a handled message from the queue it came from ({@link RunQueue#delete}). */
    public void delete(Delivery d) {
        lane(d.lane()).delete(d.receiptHandle());
    }

    /** Makes a message visible again after {@code seconds}, in the queue it came from. */
    public void changeVisibility(Delivery d, int seconds) {
        lane(d.lane()).changeVisibility(d.receiptHandle(), seconds);
    }

    /** Sends every lane's pending deletes, and returns once they are sent. */
    public void flushDeletes() {
        lanes.values().stream().distinct().forEach(RunQueue::flushDeletes);
    }
}
