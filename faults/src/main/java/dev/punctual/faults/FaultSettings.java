package dev.punctual.faults;

import dev.punctual.core.config.Settings;
import dev.punctual.core.config.Storage;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The timings of the fault suite, shared by the harness (API side, sweepers) and the executor processes: everything
 * that is minutes in production is seconds here, so leases expire, retries come back and stuck runs are re-sent
 * within the few minutes the suite may take. A scenario may override some of them; the overrides travel to the
 * executor processes as one string ({@link #encode}).
 */
public final class FaultSettings {
    /** Executors' lease on a running run (and the queue's visibility timeout). */
    public static final Duration LEASE = Duration.ofSeconds(4);

    /** One setting a scenario may override: its key, its value in the suite, and where it goes in core's settings. */
    private record Knob(String key, String value, BiConsumer<Settings.Builder, String> apply) {}

    private static final List<Knob> KNOBS = List.of(
            duration("lease", LEASE, Settings.Builder::lease),
            duration("heartbeat", Duration.ofSeconds(1), Settings.Builder::heartbeat),
            duration("retryBase", Duration.ofSeconds(1), Settings.Builder::retryBase),
            duration("retryCap", Duration.ofSeconds(2), Settings.Builder::retryCap),
            duration("requeueAfter", Duration.ofSeconds(3), Settings.Builder::requeueAfter),
            duration("sweepPeriod", Duration.ofSeconds(1), Settings.Builder::sweepPeriod),
            duration("lookahead", Duration.ofSeconds(5), Settings.Builder::lookahead),
            duration("settle", Duration.ofSeconds(2), Settings.Builder::settle),
            duration("shutdownGrace", Duration.ofSeconds(2), Settings.Builder::shutdownGrace),
            duration("killGrace", Duration.ofSeconds(1), Settings.Builder::killGrace),
            new Knob("executorConcurrency", "4", (b, v) -> b.executorConcurrency(Integer.parseInt(v))),
            new Knob("logCapBytes", Long.toString(1024 * 1024), (b, v) -> b.logCapBytes(Long.parseLong(v))),
            new Knob(
                    "inlineLogBytes",
                    Long.toString(Storage.DEFAULT_INLINE_LOG_BYTES),
                    (b, v) -> b.inlineLogBytes(Long.parseLong(v))));

    private FaultSettings() {}

    private static Knob duration(String key, Duration value, BiConsumer<Settings.Builder, Duration> apply) {
        return new Knob(key, value.toString(), (b, v) -> apply.accept(b, Duration.parse(v)));
    }

    public static Map<String, String> defaults() {
        Map<String, String> m = new LinkedHashMap<>();
        KNOBS.forEach(k -> m.put(k.key(), k.value()));
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
        v.forEach((k, val) -> knob(k).apply().accept(b, val));
        return b.build();
    }

    private static Knob knob(String key) {
        return KNOBS.stream()
                .filter(k -> k.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault setting " + key));
    }
}
