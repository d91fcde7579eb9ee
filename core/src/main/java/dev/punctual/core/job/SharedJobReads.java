package dev.punctual.core.job;

import dev.punctual.core.infra.SharedCalls;
import dev.punctual.core.infra.SharedCalls.Answer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The strongly consistent reads of jobs that one executor's threads make at once (each claimed run's check of its
 * job), sharing calls ({@link SharedCalls}): a read asked while no call is in flight goes at once, on its own
 * ({@link JobRepository#get(String)}); the reads asked while one is in flight go together as soon as it ends, up to
 * {@link JobRepository#MAX_BATCH_READ} jobs in one {@link JobRepository#getAll} (BatchGetItem, as strong as GetItem:
 * each item as of the call, every write acknowledged before it included). Two reads of one job go in two calls.
 */
public final class SharedJobReads implements AutoCloseable {
    private final SharedCalls<String, Optional<Job>> calls;

    public SharedJobReads(JobRepository jobs, String name) {
        this.calls = new SharedCalls<>(
                "job-reads-" + name,
                "the executor's job reads",
                JobRepository.MAX_BATCH_READ,
                SharedCalls.EXECUTOR_LINGER,
                id -> id,
                batch -> read(jobs, batch));
    }

    /** {@link JobRepository#get(String)}: the job, read strongly, in a call shared with the reads asked meanwhile. */
    public Optional<Job> get(String jobId) {
        return calls.ask(jobId);
    }

    /**
     * Announces a read the calling thread is about to make (a claim's, whose winner reads its job next): the read
     * shares a call with the other winners of the claim's call rather than go alone before them. Close it if the
     * read will not be made.
     */
    public SharedCalls<String, Optional<Job>>.Expected expect() {
        return calls.expect();
    }

    /** {@link #get(String)} of the read {@code expected} announced. */
    public Optional<Job> get(String jobId, SharedCalls<String, Optional<Job>>.Expected expected) {
        return calls.ask(jobId, expected);
    }

    /** How many reads wait for a call now (not counting the call in flight). */
    public int waiting() {
        return calls.waiting();
    }

    private static List<Answer<Optional<Job>>> read(JobRepository jobs, List<String> ids) {
        if (ids.size() == 1) {
            return List.of(new Answer<>(jobs.get(ids.getFirst()), null));
        }
        Map<String, Job> found = jobs.getAll(ids);
        return ids.stream()
                .map(id -> new Answer<>(Optional.ofNullable(found.get(id)), null))
                .toList();
    }

    /** Stops the reader; reads asked after this fail. */
    @Override
    public void close() {
        calls.close();
    }
}
