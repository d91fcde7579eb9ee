package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.job.Labels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Which of a tenant's jobs a listing shows, every part optional: {@code state} (one or more job states,
 * comma-separated), {@code label} ({@code key=value} pairs, comma-separated, all of which the job must have; a bare
 * {@code key} asks only that it is there) and {@code namePrefix} (case-sensitive). The jobs are filtered after a page
 * of them is read, as a job's runs are: a page may hold fewer than {@code limit} jobs and still have a cursor.
 */
public record JobListing(String state, String label, String namePrefix) {
    /** No filter: every job. */
    public static final JobListing ALL = new JobListing(null, null, null);

    private static final String STATES =
            Arrays.stream(JobState.values()).map(Enum::name).collect(Collectors.joining(", "));

    /** The test a job must pass to be listed; a 400 naming each bad parameter. */
    Predicate<Job> resolve() {
        List<FieldError> errors = new ArrayList<>();
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        if (state != null && !state.isEmpty()) {
            for (String s : state.split(",", -1)) {
                try {
                    states.add(JobState.valueOf(s.strip()));
                } catch (IllegalArgumentException e) {
                    errors.add(new FieldError("state", "must be one or more of " + STATES + ", comma-separated"));
                    break;
                }
            }
        }
        Map<String, String> selector = null;
        if (label != null && !label.isEmpty()) {
            String problem = Labels.selectorProblem(label);
            if (problem != null) {
                errors.add(new FieldError("label", problem));
            } else {
                selector = Labels.selector(label);
            }
        }
        if (namePrefix != null && namePrefix.length() > 128) {
            errors.add(new FieldError("namePrefix", "must be at most 128 characters"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.MALFORMED, errors);
        }
        Map<String, String> labels = selector;
        String prefix = namePrefix == null || namePrefix.isEmpty() ? null : namePrefix;
        return job -> (states.isEmpty() || states.contains(job.state()))
                && (labels == null || Labels.matches(job.labels(), labels))
                && (prefix == null || job.name().startsWith(prefix));
    }
}
