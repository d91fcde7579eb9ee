package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox's reading of {@code /proc/<pid>/status}: which processes are a pool uid's, alive. */
class ProcessStatusTest {
    @TempDir
    Path tmp;

    private boolean of(String status, int uid) throws Exception {
        Path f = Files.writeString(tmp.resolve("status-" + System.nanoTime()), status);
        return UidProcesses.isLiveProcessOf(f, uid, new byte[1024]);
    }

    private static String status(String state, String uids) {
        return "Name:\tsleep\nUmask:\t0022\nState:\t" + state + "\nTgid:\t42\nNgid:\t0\nPid:\t42\nPPid:\t1\n"
                + "TracerPid:\t0\nUid:\t" + uids + "\nGid:\t0\t0\t0\t0\nFDSize:\t64\n";
    }

    @Test
    void aProcessIsTheUidsByItsRealEffectiveOrSavedUid() throws Exception {
        assertThat(of(status("S (sleeping)", "200001\t0\t0\t0"), 200001)).isTrue();
        assertThat(of(status("R (running)", "0\t200001\t0\t0"), 200001)).isTrue();
        assertThat(of(status("S (sleeping)", "0\t0\t200001\t0"), 200001)).isTrue();
    }

    @Test
    void notByItsFilesystemUidOrAnotherUid() throws Exception {
        assertThat(of(status("S (sleeping)", "0\t0\t0\t200001"), 200001)).isFalse();
        assertThat(of(status("S (sleeping)", "2000010\t2000010\t2000010\t2000010"), 200001))
                .isFalse();
    }

    @Test
    void aZombieOrAProcessGoneOrAStatusCutShortIsNot() throws Exception {
        assertThat(of(status("Z (zombie)", "200001\t200001\t200001\t200001"), 200001))
                .isFalse();
        assertThat(UidProcesses.isLiveProcessOf(tmp.resolve("no-such-status"), 200001, new byte[1024]))
                .isFalse();
        assertThat(of("Name:\tsleep\nState:\tS (sleeping)\nUid:\t2000", 200001)).isFalse();
    }

    @Test
    void readsTheLiveProcessesOfThisHost() throws Exception {
        // This JVM itself: a process of the uid it runs as.
        int self = (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertThat(Sandbox.pidsOf(self)).contains(ProcessHandle.current().pid());
    }
}
