package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads;
import dev.punctual.bench.FixedThreads.Trial;

/** The baseline: what the JDK alone costs to start a process and wait for it. */
final class BareProcessBuilder implements LaunchPath {
    @Override
    public String name() {
        return "bare ProcessBuilder";
    }

    @Override
    public String description() {
        return "`new ProcessBuilder(binary)`, output discarded, `start()` + `waitFor()`; the JVM's environment "
                + "is inherited";
    }

    @Override
    public Trial trial(int worker, Binary binary) {
        ProcessBuilder pb = new ProcessBuilder(binary.path().toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        return steps -> {
            int code = pb.start().waitFor();
            if (code != 0) {
                throw new FixedThreads.RunFailed("exit " + code);
            }
        };
    }
}
