package dev.punctual.core.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The live processes of a sandbox uid, read from {@code /proc}: a process is the uid's by its real, effective or
 * saved uid. The pool ({@link UidPool}) scans for them before it gives a uid out and kills them when its run ends.
 */
final class UidProcesses {
    static final Path PROC = Path.of("/proc");

    /** How much of {@code /proc/<pid>/status} is read: its State and Uid lines come within the first few lines. */
    private static final int STATUS_HEAD = 1024;

    private UidProcesses() {}

    /** The live processes of {@code uid} (zombies excluded: they hold nothing and cannot be killed). */
    static List<Long> pidsOf(int uid) {
        List<Long> out = new ArrayList<>();
        byte[] buf = new byte[STATUS_HEAD];
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : pids) {
                if (isLiveProcessOf(p.resolve("status"), uid, buf)) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /**
     * Whether the process of {@code status} is alive (not a zombie) and has {@code uid} as its real, effective or
     * saved uid. Only the head of the file is read and parsed as bytes: this runs over every process of the host
     * after every run.
     */
    static boolean isLiveProcessOf(Path status, int uid, byte[] buf) {
        int n;
        try (InputStream in = Files.newInputStream(status)) {
            n = in.readNBytes(buf, 0, buf.length);
        } catch (IOException | RuntimeException gone) {
            // Exited meanwhile.
            return false;
        }
        String head = new String(buf, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
        int state = head.indexOf("\nState:");
        int uids = head.indexOf("\nUid:");
        if (state < 0 || uids < 0) {
            return false;
        }
        int stateEnd = head.indexOf('\n', state + 1);
        if (head.substring(state + 7, stateEnd < 0 ? head.length() : stateEnd).contains("Z")) {
            return false;
        }
        int uidsEnd = head.indexOf('\n', uids + 1);
        if (uidsEnd < 0) {
            return false;
        }
        // "Uid:\treal\teffective\tsaved\tfilesystem"
        String[] f = head.substring(uids + 5, uidsEnd).trim().split("\\s+", -1);
        String u = Integer.toString(uid);
        return f.length >= 3 && (f[0].equals(u) || f[1].equals(u) || f[2].equals(u));
    }
}
