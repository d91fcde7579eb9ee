package dev.punctual.core.run;

import dev.punctual.core.firing.Priority;
import java.util.List;
import java.util.Map;

/**
 * What one triggered or backfilled run changes of its job, for that run only: {@code args} replace the job's when
 * given (null: the job's), {@code env} entries are set over the job's (empty: none), {@code priority} is its lane
 * (null: the job's). Stored on the run, so every attempt of it runs the same command ({@code Job#overridden} applies
 * them) and every message of it goes to the same lane.
 */
public record Overrides(List<String> args, Map<String, String> env, Priority priority) {
    public static final Overrides NONE = new Overrides(null, Map.of(), null);

    public Overrides {
        args = args == null ? null : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    /** The command line only, in the job's lane. */
    public Overrides(List<String> args, Map<String, String> env) {
        this(args, env, null);
    }

    /** Only the lane. */
    public static Overrides lane(Priority priority) {
        return priority == null ? NONE : new Overrides(null, Map.of(), priority);
    }

    public boolean none() {
        return args == null && env.isEmpty() && priority == null;
    }

    /** The lane of a run of a job whose own lane is {@code jobs}. */
    public Priority priorityOr(Priority jobs) {
        return priority != null ? priority : jobs;
    }
}
