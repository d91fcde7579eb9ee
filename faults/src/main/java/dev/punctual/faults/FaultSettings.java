package dev.punctual.faults;

import dev.punctual.core.config.Settings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The timings of the fault suite, shared by the harness (API side, sweepers) and the executor processes: everything
 * that is minutes in production is seconds here, so leases expire, retries come back and stuck runs are re-sent
 * within the few minutes the suite may take. A scenario may override some of them; the overrides travel to the
 * executor processes as one string ({@link #encode}).
 */
public final class FaultSettings {
    /** Executors' lease on a running run (and the queue's visibility timeout). */
    public static final Duration LEASE = Duration.ofSeconds(4);

    private FaultSettings() {}

    public static Map<String, String> defaults() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("lease", LEASE.toString());
        m.put("heartbeat", "PT1S");
        m.put("retryBase", "PT1S");
        m.put("retryCap", "PT2S");
        m.put("requeueAfter", "PT3S");
        m.put("sweepPeriod", "PT1S");
        m.put("lookahead", "PT5S");
        m.put("settle", "PT2S");
        m.put("shutdownGrace", "PT2S");
        m.put("killGrace", "PT1S");
        m.put("executorConcurrency", "4");
        m.put("logCapBytes", Long.toString(1024 * 1024));
        return m;
    }

    /** {@code key=value,key=value}, the form executor processes receive. */
    public static String encode(Map<String, String> overrides) {
        StringBuilder sb = new StringBuilder();
        overrides.forEach((k, v) ->
                sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    public static Map<String, String> decode(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        if (s != null && !s.isBlank()) {
            for (String kv : s.split(",")) {
                int eq = kv.indexOf('=');
                m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return m;
    }

    public static Settings build(String prefix, Map<String, String> overrides) {
        Map<String, String> v = defaults();
        v.putAll(overrides);
        Settings.Builder b = Settings.builder().prefix(prefix).bucket(prefix + "-artifacts");
        v.forEach((k, val) -> {
            switch (k) {
                case "lease" -> b.lease(Duration.parse(val));
                case "heartbeat" -> b.heartbeat(Duration.parse(val));
                case "retryBase" -> b.retryBase(Duration.parse(val));
                case "retryCap" -> b.retryCap(Duration.parse(val));
                case "requeueAfter" -> b.requeueAfter(Duration.parse(val));
                case "sweepPeriod" -> b.sweepPeriod(Duration.parse(val));
                case "lookahead" -> b.lookahead(Duration.parse(val));
                case "settle" -> b.settle(Duration.parse(val));
                case "shutdownGrace" -> b.shutdownGrace(Duration.parse(val));
                case "killGrace" -> b.killGrace(Duration.parse(val));
                case "executorConcurrency" -> b.executorConcurrency(Integer.parseInt(val));
                case "logCapBytes" -> b.logCapBytes(Long.parseLong(val));
                default -> throw new IllegalArgumentException("unknown fault setting " + k);
            }
        });
        return b.build();
    }
}
