package dev.punctual.bench.compare.peers;

import com.github.kagkarlsson.scheduler.serializer.Serializer;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one peer run executes: the binary and its arguments, carried as the run's own data in the peer's store so a
 * node needs nothing else to run it. Plain strings only, so neither peer falls back to Java serialization.
 */
public record RunCommand(String binary, List<String> args) {
    /**
     * db-scheduler's {@code task_data}: the binary and arguments, UTF-8, separated by NUL, the one byte an
     * {@code execve} argument cannot contain.
     */
    public static final Serializer SERIALIZER = new Serializer() {
        @Override
        public byte[] serialize(Object data) {
            return data == null ? null : ((RunCommand) data).encode();
        }

        @Override
        public <T> T deserialize(Class<T> clazz, byte[] serializedData) {
            if (serializedData == null) {
                return null;
            }
            if (clazz != RunCommand.class) {
                throw new IllegalArgumentException("task data of " + clazz + ": only RunCommand is known");
            }
            return clazz.cast(decode(serializedData));
        }
    };

    private static final ProcessBuilder.Redirect DEV_NULL = ProcessBuilder.Redirect.from(new File("/dev/null"));
    private static final String BINARY = "binary";
    private static final String ARGC = "argc";

    public RunCommand {
        args = List.copyOf(args);
        for (String s : concat(binary, args)) {
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("NUL in a command: " + s);
            }
        }
    }

    byte[] encode() {
        return String.join("\0", concat(binary, args)).getBytes(StandardCharsets.UTF_8);
    }

    static RunCommand decode(byte[] bytes) {
        List<String> parts = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\0", -1));
        return new RunCommand(parts.get(0), parts.subList(1, parts.size()));
    }

    /**
     * Quartz's job data: string values only, which {@code useProperties=true} stores as text (a binary and each
     * argument under its own key).
     */
    Map<String, String> toJobData() {
        Map<String, String> data = new HashMap<>();
        data.put(BINARY, binary);
        data.put(ARGC, Integer.toString(args.size()));
        for (int i = 0; i < args.size(); i++) {
            data.put("arg" + i, args.get(i));
        }
        return data;
    }

    static RunCommand fromJobData(Map<String, ?> data) {
        int argc = Integer.parseInt((String) data.get(ARGC));
        List<String> args = new ArrayList<>(argc);
        for (int i = 0; i < argc; i++) {
            args.add((String) data.get("arg" + i));
        }
        return new RunCommand((String) data.get(BINARY), args);
    }

    /** Runs the binary with its output discarded and returns its exit code. */
    int run() throws IOException, InterruptedException {
        return new ProcessBuilder(concat(binary, args))
                .redirectInput(DEV_NULL)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor();
    }

    /** Runs the binary; a non-zero exit is logged (stderr: the node's log file) and thrown. */
    void runOrFail() throws IOException, InterruptedException {
        int exit = run();
        if (exit != 0) {
            String message = "run " + key() + ": " + binary + " exited " + exit;
            System.err.println("peers: " + message);
            throw new Failed(message);
        }
    }

    /** The binary exited non-zero: the peer marks the execution failed. */
    static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(String message) {
            super(message);
        }
    }

    /** The run's key: its first argument ({@link dev.punctual.bench.compare.Contender.Due#args}). */
    String key() {
        return args.isEmpty() ? "(no key)" : args.get(0);
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
