package dev.punctual.core.queue;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Where dispatching sends runs' messages: the run queue ({@link RunQueue}), or a test's list. */
public interface RunSender {
    /**
     * Sends up to {@link RunQueue#MAX_BATCH} messages in one call, each delayed to its due second as seen at
     * {@code now}; the indexes (into {@code messages}) that were accepted.
     */
    Set<Integer> sendBatch(List<RunMessage> messages, Instant now);
}
