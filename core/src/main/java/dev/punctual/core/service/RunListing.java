package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository.RunRange;
import dev.punctual.core.run.RunState;
import dev.punctual.core.time.Instants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which of a job's runs a listing shows, as the query asked, every part optional: {@code state} (one or more states,
 * comma-separated), {@code from} and {@code to} (RFC 3339 instants, inclusive, on the run's due time) and
 * {@code future} ({@code true} shows the runs not due yet, hidden by default: a recurring job has a couple of
 * minutes of them queued ahead, which would otherwise fill the first page).
 */
public record RunListing(String state, String from, String to, String future) {
    /** No filter: the runs due by now, every state. */
    public static final RunListing DEFAULT = new RunListing(null, null, null, null);
    /** Every run, those not due yet too. */
    public static final RunListing ALL = new RunListing(null, null, null, "true");

    /**
     * Not a state of its own: how a run of a PAUSED job that has not started shows (SCHEDULED, QUEUED, or FAILED and
     * waiting for its retry). It starts only if the job is resumed before it is due; its own state comes back then.
     */
    public static final String PAUSED = "PAUSED";

    /** The runs {@link #PAUSED} stands for while their job is paused. */
    static final Set<RunState> UNSTARTED = Set.of(RunState.SCHEDULED, RunState.QUEUED, RunState.FAILED);

    private static final String STATES =
            Arrays.stream(RunState.values()).map(Enum::name).collect(Collectors.joining(", ")) + ", " + PAUSED;

    /**
     * Whether a listing that asked for {@code asked} (empty: any) and, if {@code asksPaused}, {@link #PAUSED} shows
     * {@code r}, of a job paused or not.
     */
    static boolean shows(Run r, boolean jobPaused, Set<RunState> asked, boolean asksPaused) {
        if (asked.isEmpty() && !asksPaused) {
            return true;
        }
        return jobPaused && UNSTARTED.contains(r.state()) ? asksPaused : asked.contains(r.state());
    }

    /** Whether {@code state} asks for {@link #PAUSED} runs. */
    boolean asksPaused() {
        return state != null
                && Arrays.stream(state.split(",", -1)).anyMatch(s -> s.strip().equals(PAUSED));
    }

    /** The range of due times and the states asked for; a 400 naming each bad parameter. */
    RunRange resolve(Instant now) {
        List<FieldError> errors = new ArrayList<>();
        Set<RunState> states = states(errors);
        Instant lo = instant("from", from, errors);
        Instant hi = instant("to", to, errors);
        boolean showFuture = false;
        if (future != null && !future.isEmpty()) {
            if (future.equals("true") || future.equals("false")) {
                showFuture = Boolean.parseBoolean(future);
            } else {
                errors.add(new FieldError("future", "must be true or false"));
            }
        }
        if (lo != null && hi != null && hi.isBefore(lo)) {
            errors.add(new FieldError("to", "must not be before from"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.MALFORMED, errors);
        }
        if (!showFuture && (hi == null || hi.isAfter(now))) {
            hi = now;
        }
        return new RunRange(lo, hi, states);
    }

    private Set<RunState> states(List<FieldError> errors) {
        if (state == null || state.isEmpty()) {
            return Set.of();
        }
        Set<RunState> out = EnumSet.noneOf(RunState.class);
        for (String s : state.split(",", -1)) {
            if (s.strip().equals(PAUSED)) {
                continue;
            }
            try {
                out.add(RunState.valueOf(s.strip()));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("state", "must be one or more of " + STATES + ", comma-separated"));
                return Set.of();
            }
        }
        return out;
    }

    private static Instant instant(String name, String text, List<FieldError> errors) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        Instant t = Instants.parseOrNull(text);
        if (t == null || !Instants.supported(t)) {
            errors.add(new FieldError(name, "must be an RFC 3339 instant, such as 2026-01-01T00:00:00Z"));
            return null;
        }
        return t;
    }
}
