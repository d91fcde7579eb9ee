package dev.punctual.core.exec;

import dev.punctual.core.limits.RunLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that starts a run's binary held in by a {@link ProcessRunner.Confinement}: through the sandbox's
 * helper ({@code core/src/main/c/punctual-sandbox.c}), which makes every step itself and then one {@code execve} of
 * the binary; or, where there is no helper, through util-linux's tools, one {@code execve} each ({@code setsid},
 * {@code unshare}, {@code prlimit}, {@code setpriv}, a shell for the gate). Both end in the same process: its pid
 * is the run's process group and session, and it becomes the binary.
 *
 * <p>Every step is named by its absolute path: each execs the next with the run's environment, whose PATH a job may
 * set. By name, a job with PATH=/tmp/x had /tmp/x/prlimit (planted by another of its runs) exec'd as root.
 */
final class StartChain {
    static final String SETSID = ProcessRunner.installed("setsid");
    /** util-linux's setpriv, to give the binary a parent-death signal (util-linux ≥ 2.33 has --pdeathsig). */
    static final String SETPRIV = ProcessRunner.installed("setpriv");
    /** util-linux's prlimit, to set a run's rlimits on the way in (root may lower them for its child). */
    static final String PRLIMIT = ProcessRunner.installed("prlimit");

    static final String UNSHARE = ProcessRunner.installed("unshare");

    /**
     * The shell step a gated binary waits in, without the helper: every step before it (session, namespace,
     * limits, user) is done, and the binary is exec'd in place once a line is read, with {@code /dev/null} as its
     * input; at end of input it exits {@value ProcessRunner#NOT_RELEASED} instead. The shell would add {@code PWD}
     * to the binary's environment; it is unset unless the caller passes one.
     */
    private static final String GATE =
            "read -r go || exit " + ProcessRunner.NOT_RELEASED + "; exec \"$0\" \"$@\" </dev/null";

    private StartChain() {}

    /**
     * The helper's command: {@code -s} a session of its own, {@code -k} the parent-death signal (this JVM's pid), the run's
     * filesystem ({@code -d}, {@code -w}, {@code -t}), an empty network ({@code -n}), rlimits ({@code -r}), its user
     * ({@code -u}), the gate ({@code -g}), then the binary and its arguments ({@code tail}).
     */
    static List<String> helper(
            Path helper, ProcessRunner.Confinement c, boolean gated, Path workDir, List<String> tail) {
        // The parent-death signal, checked against this JVM: the helper is its child (jspawnhelper execs in place).
        List<String> command = new ArrayList<>(List.of(
                helper.toString(),
                "-s",
                "-k",
                Long.toString(ProcessHandle.current().pid())));
        if (c.disk() != null) {
            command.addAll(List.of(
                    "-d",
                    c.disk().image().toString(),
                    "-w",
                    workDir.toAbsolutePath().toString()));
            c.disk().temps().forEach(t -> command.addAll(List.of("-t", t.toString())));
        }
        if (c.privateNetwork()) {
            command.add("-n");
        }
        if (c.limits() != null) {
            rlimits(c.limits(), c.uid() != null).forEach(r -> command.addAll(List.of("-r", r)));
        }
        if (c.uid() != null) {
            command.addAll(List.of("-u", c.uid().toString()));
        }
        if (gated) {
            command.add("-g");
        }
        command.add("--");
        command.addAll(tail);
        return command;
    }

    /**
     * The same steps but a filesystem of the run's own (which takes the helper) through util-linux's tools and a
     * shell (see above); {@code pwdGiven}: the job sets PWD.
     */
    static List<String> tools(ProcessRunner.Confinement c, boolean gated, boolean pwdGiven, List<String> tail) {
        Integer sandboxUid = c.uid();
        List<String> command = new ArrayList<>();
        if (SETSID != null) {
            // setsid makes the binary the leader of a new session and process group, so the whole group
            // (its children too) can be signalled at once. It execs in place: the pid is the group id.
            command.add(SETSID);
        }
        if (c.privateNetwork()) {
            // Without --fork, unshare execs in place too: same pid, now in an empty network namespace.
            command.addAll(List.of(UNSHARE == null ? "unshare" : UNSHARE, "--net"));
        }
        if (c.limits() != null) {
            // Set while still root, inherited through the change of user below; hard = soft, so the binary cannot
            // raise them again (except CPU, whose hard limit a second later turns SIGXCPU into SIGKILL).
            command.add(PRLIMIT == null ? "prlimit" : PRLIMIT);
            rlimits(c.limits(), sandboxUid != null).forEach(r -> command.add("--" + r));
            command.add("--");
        }
        if (SETPRIV != null) {
            // If the executor dies without a chance to kill it (kill -9, OOM killer), the kernel kills the binary:
            // its own session keeps it out of the executor's process group, so nothing else would, and it would
            // run on while the run is taken over by another executor. (The signal follows the thread that
            // started it, one of the executor's long-lived run threads.) Children the binary started
            // itself are not covered; on ECS the whole task ends with the executor anyway.
            command.add(SETPRIV);
            if (sandboxUid != null) {
                command.addAll(
                        List.of("--reuid=" + sandboxUid, "--regid=" + sandboxUid, "--clear-groups", "--no-new-privs"));
            }
            command.addAll(List.of("--pdeathsig", "KILL", "--"));
        }
        if (gated) {
            command.addAll(List.of("/bin/sh", "-c", pwdGiven ? GATE : "unset PWD; " + GATE));
        }
        command.addAll(tail);
        return command;
    }

    /**
     * The rlimits of {@code l} as {@code RES=SOFT:HARD}, hard = soft (except CPU's: a second more turns SIGXCPU
     * into SIGKILL). The process count is a per-user limit: set only for a run that is a user of its own, since
     * under the executor's uid it would count the executor's own threads.
     */
    static List<String> rlimits(RunLimits l, boolean ownUser) {
        List<String> out = new ArrayList<>();
        if (ownUser) {
            out.add("nproc=" + l.processes() + ":" + l.processes());
        }
        long mib = 1024L * 1024;
        out.add("data=" + l.memoryMb() * mib + ":" + l.memoryMb() * mib);
        out.add("nofile=" + l.openFiles() + ":" + l.openFiles());
        out.add("fsize=" + l.fileSizeMb() * mib + ":" + l.fileSizeMb() * mib);
        out.add("cpu=" + l.cpuSeconds() + ":" + (l.cpuSeconds() + 1L));
        return out;
    }
}
