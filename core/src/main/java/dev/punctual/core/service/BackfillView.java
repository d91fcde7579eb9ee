package dev.punctual.core.service;

import java.util.List;

/**
 * What a backfill did: the occurrences in the range, the runs it created (their ids), and how many occurrences
 * already had a run (they are left as they are: backfilling twice creates nothing the second time).
 */
public record BackfillView(
        String jobId, String from, String to, int occurrences, List<String> created, int alreadyExisting) {}
