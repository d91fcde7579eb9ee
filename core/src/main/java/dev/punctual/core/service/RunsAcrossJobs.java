package dev.punctual.core.service;

import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository.RunRange;
import dev.punctual.core.run.RunSearch;
import dev.punctual.core.run.RunState;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An owner's runs across their jobs ({@code GET /v1/runs}), newest due first, narrowed as a job's listing is
 * ({@link RunListing}). Only {@code state=DEAD} and nothing else is the dead-letter listing, most recently finished
 * first ({@link DeadLetterService#list}), as it always was.
 */
public final class RunsAcrossJobs {
    /** A shard read to its end, in a cursor. */
    private static final String DONE = "~";

    private final JobRepository jobs;
    private final RunSearch search;
    private final DeadLetterService deadLetters;
    private final Clock clock;

    public RunsAcrossJobs(JobRepository jobs, RunSearch search, DeadLetterService deadLetters, Clock clock) {
        this.jobs = jobs;
        this.search = search;
        this.deadLetters = deadLetters;
        this.clock = clock;
    }

    /**
     * A page of the owner's runs. The states are applied to the page's runs after they are read (the index holds
     * keys only), so a page may hold fewer than {@code limit}, even none, and still have a next one.
     */
    public Page<RunView> list(String owner, RunListing listing, Integer limit, String cursor) {
        if (RunState.DEAD.name().equals(listing.state())
                && listing.from() == null
                && listing.to() == null
                && listing.future() == null) {
            return deadLetters.list(owner, RunState.DEAD.name(), limit, cursor);
        }
        RunRange range = listing.resolve(clock.instant());
        int n = Cursors.pageSize(limit);
        RunSearch.Found found = search.search(owner, range.from(), range.to(), n, decode(cursor));
        Map<String, Job> byId =
                jobs.getAll(found.runs().stream().map(Run::jobId).distinct().toList());
        boolean asksPaused = listing.asksPaused();
        // A run whose job item is gone (jobs are only ever marked deleted, so none should be) is still shown.
        List<RunView> shown = found.runs().stream()
                .filter(r -> RunListing.shows(r, paused(byId.get(r.jobId())), range.states(), asksPaused))
                .map(r -> byId.containsKey(r.jobId()) ? JobService.view(r, byId.get(r.jobId())) : RunView.of(r, null))
                .toList();
        return new Page<>(shown, encode(found.next()));
    }

    private static boolean paused(Job job) {
        return job != null && job.state() == JobState.PAUSED;
    }

    /** A position as a cursor ({@link Cursors#write}): each shard's last key ({@code jobId/runId}) or {@value #DONE}. */
    static String encode(RunSearch.Position p) {
        if (p == null) {
            return null;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        p.after().forEach((shard, key) -> fields.put(shard.toString(), key.jobId() + "/" + key.runId()));
        p.done().forEach(shard -> fields.put(shard.toString(), DONE));
        return Cursors.write(fields);
    }

    /**
     * The position a cursor names, checked as a stranger's input: each shard a number in range, each key a job id
     * and run id of that shard's, or the cursor is refused naming {@code cursor}.
     */
    static RunSearch.Position decode(String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            return RunSearch.Position.START;
        }
        Map<Integer, RunSearch.RunKey> after = new HashMap<>();
        Set<Integer> done = new HashSet<>();
        for (Map.Entry<String, String> e : Cursors.read(cursor).entrySet()) {
            int shard;
            try {
                shard = Integer.parseInt(e.getKey());
            } catch (NumberFormatException notAShard) {
                throw Cursors.rejected();
            }
            String v = e.getValue();
            if (shard < 0 || shard >= RunSearch.SHARDS) {
                throw Cursors.rejected();
            }
            if (v.equals(DONE)) {
                done.add(shard);
                continue;
            }
            int slash = v.indexOf('/');
            String jobId = slash < 0 ? "" : v.substring(0, slash);
            String runId = slash < 0 ? "" : v.substring(slash + 1);
            if (!Keys.jobId(jobId) || !Keys.runId(runId) || RunSearch.shardOf(jobId) != shard) {
                throw Cursors.rejected();
            }
            after.put(shard, new RunSearch.RunKey(jobId, runId));
        }
        return new RunSearch.Position(after, done);
    }
}
