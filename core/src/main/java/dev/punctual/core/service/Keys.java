package dev.punctual.core.service;

import dev.punctual.core.run.RunIds;
import java.util.regex.Pattern;

/**
 * The shapes of the ids a client can send in a path or a cursor. An id of any other shape names nothing: the
 * services answer "not found" without asking DynamoDB, which would reject a key over its size limit (2048 bytes
 * for a partition key, 1024 for a sort key) with an error of its own.
 */
final class Keys {
    /**
     * A run id: its occurrence as {@link RunIds#forOccurrence} renders it (four-digit years: schedules yield no
     * occurrence past year 9999), and for an extra run made by trigger, {@code -t} and six hex digits.
     */
    private static final Pattern RUN_ID = Pattern.compile("\\d{8}T\\d{6}\\.\\d{3}Z(-t[0-9a-f]{6})?");

    private Keys() {}

    static boolean jobId(String id) {
        return Ids.looksLike("job", id);
    }

    static boolean runId(String id) {
        return id != null && RUN_ID.matcher(id).matches();
    }
}
