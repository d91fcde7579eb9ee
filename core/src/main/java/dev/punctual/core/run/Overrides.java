package dev.punctual.core.run;

import java.util.List;
import java.util.Map;

/**
 * What one triggered run changes of its job's command line, for that run only: {@code args} replace the job's when
 * given (null: the job's), {@code env} entries are set over the job's (empty: none). Stored on the run, so every
 * attempt of it runs the same command ({@code Job#overridden} applies them).
 */
public record Overrides(List<String> args, Map<String, String> env) {
    public static final Overrides NONE = new Overrides(null, Map.of());

    public Overrides {
        args = args == null ? null : List.copyOf(args);
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    public boolean none() {
        return args == null && env.isEmpty();
    }
}
