package dev.punctual.bench.compare;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A set of one-shot runs and when each is due, relative to a start instant T0 the runner picks. */
public record Scenario(String name, String kind, int runs, int perSecond, int seconds) {
    public static Scenario burst(int runs) {
        return new Scenario("burst " + String.format("%,d", runs), "burst", runs, 0, 0);
    }

    public static Scenario steady(int perSecond, int seconds) {
        return new Scenario(
                "steady " + perSecond + "/s for " + seconds + " s", "steady", perSecond * seconds, perSecond, seconds);
    }

    public boolean isBurst() {
        return kind.equals("burst");
    }

    /** Every run due at {@code t0} (burst), or {@code perSecond} due at each whole second from it (steady). */
    public List<Contender.Due> dues(Instant t0) {
        List<Contender.Due> out = new ArrayList<>(runs);
        if (isBurst()) {
            for (int i = 0; i < runs; i++) {
                out.add(new Contender.Due("b" + i, t0));
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

    /** How long after creation starts the first run is due: time to create them all at a slow 150/s, and 15 s. */
    public Duration lead() {
        return Duration.ofSeconds(15 + runs / 150);
    }

    /** How long after the last due the runner waits for the last start. */
    public Duration patience() {
        return Duration.ofSeconds(Math.max(120, runs / 20));
    }
}
