package dev.punctual.bench.compare;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A set of runs and when each is due, relative to a start instant T0 the runner picks: one-shots (a burst, a steady
 * load), or the occurrences of recurring jobs ({@link #recurring}: {@code perSecond} is then the number of jobs and
 * {@code every} their interval in seconds), or a burst in two lanes ({@link #priority}: {@code high} of its runs
 * in the high lane, the rest in the low one).
 */
public record Scenario(String name, String kind, int runs, int perSecond, int seconds, int every, int high) {
    public static Scenario burst(int runs) {
        return new Scenario("burst " + String.format("%,d", runs), "burst", runs, 0, 0, 0, 0);
    }

    /**
     * {@code low} runs in the low lane and {@code high} in the high lane, all due at T0, the low ones created first
     * (so also sent first): a backfill already queued when urgent work comes, issue 36's worst case.
     */
    public static Scenario priority(int low, int high) {
        if (low < 1 || high < 1) {
            throw new IllegalArgumentException("--priority needs <low>x<high>, both at least 1: " + low + "x" + high);
        }
        return new Scenario(
                String.format("priority %,d low + %,d high", low, high), "priority", low + high, 0, 0, 0, high);
    }

    public static Scenario steady(int perSecond, int seconds) {
        return new Scenario(
                "steady " + perSecond + "/s for " + seconds + " s",
                "steady",
                perSecond * seconds,
                perSecond,
                seconds,
                0,
                0);
    }

    /**
     * {@code jobs} recurring jobs, each firing every {@code every} seconds for {@code seconds} from T0 (T0 included,
     * T0 + seconds not), their first occurrences spread over the first {@code every} seconds (job j at T0 + j mod
     * every), so that as many come due at each whole second, as in a steady load: what an occurrence of a recurring
     * job costs, where the other scenarios price one-shots.
     */
    public static Scenario recurring(int jobs, int every, int seconds) {
        int runs = 0;
        for (int j = 0; j < jobs; j++) {
            runs += occurrences(j % every, every, seconds);
        }
        return new Scenario(
                jobs + " jobs every " + every + " s for " + seconds + " s", "recurring", runs, jobs, seconds, every, 0);
    }

    /** How many times a job first due {@code offset} seconds after T0 fires before T0 + {@code seconds}. */
    private static int occurrences(int offset, int every, int seconds) {
        return offset >= seconds ? 0 : (seconds - offset + every - 1) / every;
    }

    public boolean isRecurring() {
        return kind.equals("recurring");
    }

    /** What the client creates: a job per run, or per recurring job. */
    public int created() {
        return isRecurring() ? perSecond : runs;
    }

    /** The recurring jobs of a {@link #recurring} scenario, from T0. */
    public List<Contender.Series> series(Instant t0) {
        List<Contender.Series> out = new ArrayList<>();
        for (int j = 0; j < perSecond; j++) {
            int count = occurrences(j % every, every, seconds);
            if (count > 0) {
                out.add(new Contender.Series("r" + j, t0.plusSeconds(j % every), Duration.ofSeconds(every), count));
            }
        }
        return out;
    }

    public boolean isBurst() {
        return kind.equals("burst");
    }

    public boolean isPriority() {
        return kind.equals("priority");
    }

    /** The runs of a {@link #priority} scenario in the low lane. */
    public int low() {
        return runs - high;
    }

    /** Whether every run is due at T0 (a burst, or a burst in two lanes): throughput is then its measure. */
    public boolean allAtOnce() {
        return isBurst() || isPriority();
    }

    /**
     * Every run due at {@code t0} (burst; priority: {@code low-<i>} in the low lane first, then {@code high-<i>} in
     * the high lane, the order they are created in), {@code perSecond} due at each whole second from it (steady), or
     * each occurrence of each recurring job (keyed as its binary keys it, {@link Contender.Series#key}).
     */
    public List<Contender.Due> dues(Instant t0) {
        List<Contender.Due> out = new ArrayList<>(runs);
        if (isRecurring()) {
            for (Contender.Series r : series(t0)) {
                for (int k = 0; k < r.count(); k++) {
                    Instant at = r.first().plus(r.every().multipliedBy(k));
                    out.add(new Contender.Due(r.key(at), at));
                }
            }
        } else if (isBurst()) {
            for (int i = 0; i < runs; i++) {
                out.add(new Contender.Due("b" + i, t0));
            }
        } else if (isPriority()) {
            for (int i = 0; i < low(); i++) {
                out.add(new Contender.Due(LOW + "-" + i, t0, LOW));
            }
            for (int i = 0; i < high; i++) {
                out.add(new Contender.Due(HIGH + "-" + i, t0, HIGH));
            }
        } else {
            for (int s = 0; s < seconds; s++) {
                for (int j = 0; j < perSecond; j++) {
                    out.add(new Contender.Due("s" + s + "-" + j, t0.plusSeconds(s)));
                }
            }
        }
        return out;
    }

    public static final String HIGH = "high";
    public static final String LOW = "low";

    /** How long after creation starts the first run is due: time to create them all at a slow 150/s, and 15 s. */
    public Duration lead() {
        return Duration.ofSeconds(15 + created() / 150);
    }

    /** How long after the last due the runner waits for the last start. */
    public Duration patience() {
        return Duration.ofSeconds(Math.max(120, runs / 20));
    }
}
