package dev.punctual.bench.compare;

import dev.punctual.bench.Samples;
import java.util.Map;
import java.util.Optional;

/** One contender's measurements in one scenario; {@code lanes} its starts by lane (priority scenarios; else null). */
public record Result(
        String system,
        boolean punctual,
        Scenario scenario,
        String loadAverage,
        double creationSeconds,
        boolean createdLate,
        Samples.Summary lateness,
        int started,
        int missing,
        int duplicates,
        int early,
        double spanSeconds,
        double cpuSeconds,
        Map<String, Double> cpuByKind,
        double peakRssMib,
        Optional<Usage> usage,
        Lanes lanes) {

    public double creationRate() {
        return scenario.created() / creationSeconds;
    }

    /** Runs started per second from T0 until the last first start (bursts, priority scenarios). */
    public double throughput() {
        return spanSeconds <= 0 ? 0 : started / spanSeconds;
    }

    public double cpuPerThousand() {
        return cpuSeconds * 1000.0 / scenario.runs();
    }
}
