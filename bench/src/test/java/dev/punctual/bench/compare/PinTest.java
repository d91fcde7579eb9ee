package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PinTest {
    @AfterEach
    void off() {
        Pin.disable();
    }

    /** The CPUs the kernel lets a process started with {@code command} run on (its Cpus_allowed_list). */
    private static String cpusOf(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .findFirst()
                .orElseThrow()
                .split(":")[1]
                .trim();
    }

    @Test
    void offLeavesTheCommandAlone() {
        List<String> cmd = List.of("java", "-jar", "x.jar");
        assertThat(Pin.STORE.wrap(cmd)).isEqualTo(cmd);
        assertThat(Pin.describe()).isEmpty();
    }

    @Test
    void onPutsTheStoreOnTheFirstCpuAndTheWorkersOnTheSecond() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "pinning needs two CPUs");
        Pin.enable();
        List<String> status = List.of("cat", "/proc/self/status");
        assertThat(cpusOf(Pin.STORE.wrap(status))).isEqualTo("0");
        assertThat(cpusOf(Pin.WORKERS.wrap(status))).isEqualTo("1");
        assertThat(Pin.describe()).contains("CPU 0").contains("CPU 1");
    }
}
