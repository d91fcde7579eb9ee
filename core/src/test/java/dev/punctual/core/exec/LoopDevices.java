package dev.punctual.core.exec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The host's loop devices, as the tests of runs' own filesystems look at them. */
public final class LoopDevices {
    private LoopDevices() {}

    /** The loop devices attached to a file under {@code dir} (a deleted one's name ends in " (deleted)"). */
    public static List<String> on(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> devices = Files.newDirectoryStream(Path.of("/sys/block"), "loop*")) {
            for (Path d : devices) {
                try {
                    if (Files.readString(d.resolve("loop/backing_file")).startsWith(dir.toString())) {
                        out.add(d.getFileName().toString());
                    }
                } catch (IOException detached) {
                    // No backing file: not attached.
                }
            }
        }
        return out;
    }
}
