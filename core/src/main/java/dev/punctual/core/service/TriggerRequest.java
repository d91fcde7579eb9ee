package dev.punctual.core.service;

import java.util.List;
import java.util.Map;

/**
 * The optional body of {@code POST /v1/jobs/{id}/trigger}: for this run only, {@code args} replace the job's and
 * {@code env} entries are set over the job's (the same rules as a job's own; a secret's name cannot be overridden), and
 * {@code priority} (high, normal, low) is its lane instead of the job's.
 */
public record TriggerRequest(List<String> args, Map<String, String> env, String priority) {
    /** The command line only, in the job's lane. */
    public TriggerRequest(List<String> args, Map<String, String> env) {
        this(args, env, null);
    }
}
