package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.executor.ExecutorLifecycle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The executor's container: root inside it only with the capabilities the sandbox needs, a read-only root
 * filesystem, one task volume, explicit ulimits; the same directories in the ECS task and in both images. Each check
 * returns the drift it finds, so {@link DriftDetectionTest} can show it fails on a broken copy.
 */
final class HardeningContract {
    /** Docker's default capability set (moby, oci/caps/defaults.go), which ECS adds to and drops from. */
    static final Set<String> DOCKER_DEFAULT_CAPABILITIES = Set.of(
            "CHOWN",
            "DAC_OVERRIDE",
            "FSETID",
            "FOWNER",
            "MKNOD",
            "NET_RAW",
            "SETGID",
            "SETUID",
            "SETFCAP",
            "SETPCAP",
            "NET_BIND_SERVICE",
            "SYS_CHROOT",
            "KILL",
            "AUDIT_WRITE");
    /**
     * What the executor uses as root: CHOWN (a run's directory to its uid), DAC_OVERRIDE (other uids' run
     * directories), FOWNER (modes of files it does not own), KILL (every process of a run's uid), SETUID and
     * SETGID (become the run's uid and gid).
     */
    static final Set<String> EXECUTOR_CAPABILITIES =
            Set.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID");
    /** The executor's one writable place, in the images and the task. */
    static final String VOLUME = "/var/lib/punctual";

    static final List<String> DIRECTORIES = List.of("PUNCTUAL_WORK_DIR", "PUNCTUAL_SANDBOX_DIR");

    private static final Pattern MERGED_LAST =
            Pattern.compile("(?s)^\\$\\{jsonencode\\(\\[merge\\((.*),\\s*local\\.(\\w+)\\s*,?\\s*\\)\\s*]\\)\\s*}$");
    private static final Pattern LOCAL_REF = Pattern.compile("local\\.(\\w+)");
    private static final Pattern PACKAGE_INSTALL =
            Pattern.compile("\\b(microdnf|dnf|yum|apt-get|apk)\\s+(-\\S+\\s+)*(install|add)\\b[^&;|]*\\butil-linux\\b");
    private static final Pattern CHOWN = Pattern.compile("--chown=(\\S+)");

    private final Terraform tf;

    HardeningContract(Terraform tf) {
        this.tf = tf;
    }

    /** The task definition's container: hardening merged last, root with only the needed capabilities, etc. */
    List<String> taskDefinition() {
        Map<String, JsonNode> tasks = tf.resources("aws_ecs_task_definition");
        if (tasks.size() != 1) {
            return List.of("expected one aws_ecs_task_definition, found " + tasks.keySet());
        }
        JsonNode task = tasks.values().iterator().next();
        String definitions = task.path("container_definitions").asText("");
        List<String> drift = new ArrayList<>();
        if (Pattern.compile("\\bprivileged\\s*=").matcher(definitions).find()) {
            drift.add("the container definition sets privileged");
        }
        Matcher m = MERGED_LAST.matcher(definitions);
        if (!m.matches()) {
            return List.of("container_definitions must be jsonencode([merge({...}, local.<hardening>)]), the "
                    + "hardening last so that nothing can loosen it; it is " + definitions);
        }
        JsonNode h = tf.local(m.group(2)).orElse(null);
        String where = "local." + m.group(2);
        if (h == null || !h.isObject()) {
            return List.of(where + " is not a literal object");
        }
        if (h.has("privileged")) {
            drift.add(where + " sets privileged");
        }
        expect(
                drift,
                where + ".user (root in the container, to give each run a uid of its own)",
                "0",
                h.path("user").asText(null));
        expect(
                drift,
                where + ".readonlyRootFilesystem",
                true,
                h.path("readonlyRootFilesystem").isBoolean()
                        ? h.path("readonlyRootFilesystem").asBoolean()
                        : h.path("readonlyRootFilesystem").toString());
        JsonNode linux = h.path("linuxParameters");
        expect(
                drift,
                where + ".linuxParameters.initProcessEnabled",
                true,
                linux.path("initProcessEnabled").asBoolean(false));
        drift.addAll(capabilities(where, linux.path("capabilities")));
        drift.addAll(ulimits(where, h.path("ulimits")));
        drift.addAll(mount(where, h.path("mountPoints"), task));
        drift.addAll(healthCheck(definitions));
        return drift;
    }

    private static final Pattern HEALTH_CHECK = Pattern.compile("\\bhealthCheck\\s*=\\s*local\\.(\\w+)");
    private static final Pattern STALE_AFTER = Pattern.compile("-lt\\s+(\\d+)");

    /**
     * The container's health check reads the age of the file the executor touches while its pool takes runs
     * ({@link ExecutorLifecycle#HEALTH_FILE}, in its work directory), and allows at least three of its beats.
     */
    private List<String> healthCheck(String definitions) {
        Matcher m = HEALTH_CHECK.matcher(definitions);
        if (!m.find()) {
            return List.of("the executor's container has no healthCheck = local.<name>: ECS would keep a task "
                    + "whose pool stopped taking runs");
        }
        String where = "local." + m.group(1);
        JsonNode check = tf.local(m.group(1)).orElse(null);
        if (check == null
                || !check.path("command").isArray()
                || check.path("command").size() != 2) {
            return List.of(where + ".command must be [\"CMD-SHELL\", <a test of the health file's age>]");
        }
        List<String> drift = new ArrayList<>();
        expect(
                drift,
                where + ".command[0]",
                "CMD-SHELL",
                check.path("command").get(0).asText());
        String shell = check.path("command").get(1).asText();
        String file = directories().get("PUNCTUAL_WORK_DIR") + "/" + ExecutorLifecycle.HEALTH_FILE;
        if (!shell.contains(file)) {
            drift.add(where + ".command does not read " + file + ", the file the executor touches: " + shell);
        }
        Matcher stale = STALE_AFTER.matcher(shell);
        long beats = 3 * ExecutorLifecycle.HEALTH_BEAT.toSeconds();
        if (!stale.find() || Long.parseLong(stale.group(1)) < beats) {
            drift.add(where + ".command must allow at least " + beats + " s (three beats of the executor) since "
                    + "the last touch: " + shell);
        }
        return drift;
    }

    /**
     * Every default capability the executor does not need is dropped, none it needs is, nothing is added (Fargate
     * could add only SYS_PTRACE, which the executor does not want), and not ALL (it could not be added back).
     */
    private static List<String> capabilities(String where, JsonNode caps) {
        List<String> drift = new ArrayList<>();
        Set<String> drop = new TreeSet<>();
        caps.path("drop").forEach(c -> drop.add(c.asText()));
        Set<String> missing = new TreeSet<>(DOCKER_DEFAULT_CAPABILITIES);
        missing.removeAll(EXECUTOR_CAPABILITIES);
        missing.removeAll(drop);
        if (!missing.isEmpty()) {
            drift.add(where + ": capabilities.drop keeps " + missing + ", which the executor does not need");
        }
        Set<String> needed = new TreeSet<>(drop);
        needed.retainAll(EXECUTOR_CAPABILITIES);
        if (!needed.isEmpty()) {
            drift.add(where + ": capabilities.drop drops " + needed + ", which the executor needs");
        }
        if (drop.contains("ALL")) {
            drift.add(where + ": capabilities.drop is ALL: the executor's six could not be added back on Fargate");
        }
        if (caps.has("add") && !caps.path("add").isEmpty()) {
            drift.add(where + ": capabilities.add " + caps.path("add") + ": the executor needs none");
        }
        return drift;
    }

    /** nofile and nproc are stated, each with a soft limit no higher than its hard limit. */
    private static List<String> ulimits(String where, JsonNode ulimits) {
        List<String> drift = new ArrayList<>();
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        ulimits.forEach(u -> byName.put(u.path("name").asText(), u));
        for (String name : List.of("nofile", "nproc")) {
            JsonNode u = byName.get(name);
            if (u == null) {
                drift.add(where + ": no ulimit " + name);
            } else if (!u.path("softLimit").isIntegralNumber()
                    || !u.path("hardLimit").isIntegralNumber()
                    || u.path("softLimit").asLong() > u.path("hardLimit").asLong()
                    || u.path("hardLimit").asLong() < 1) {
                drift.add(where + ": ulimit " + name + " needs whole soft <= hard limits, not " + u);
            }
        }
        return drift;
    }

    /** The volume is mounted writable at {@link #VOLUME} from a task volume with no host path (ephemeral storage). */
    private static List<String> mount(String where, JsonNode mountPoints, JsonNode task) {
        JsonNode mount = null;
        for (JsonNode m : mountPoints) {
            if (VOLUME.equals(m.path("containerPath").asText())) {
                mount = m;
            }
        }
        if (mount == null) {
            return List.of(where + ": nothing is mounted at " + VOLUME);
        }
        List<String> drift = new ArrayList<>();
        if (mount.path("readOnly").asBoolean(false)) {
            drift.add(where + ": " + VOLUME + " is mounted read-only");
        }
        String source = mount.path("sourceVolume").asText("");
        JsonNode volume = null;
        for (JsonNode v : task.path("volume")) {
            if (source.equals(v.path("name").asText())) {
                volume = v;
            }
        }
        if (volume == null) {
            drift.add(where + ": " + VOLUME + " mounts \"" + source + "\", which is no volume of the task definition");
        } else {
            Set<String> settings = new TreeSet<>();
            volume.fieldNames().forEachRemaining(settings::add);
            settings.remove("name");
            if (!settings.isEmpty()) {
                drift.add("the task volume \"" + source + "\" must be a bind mount on the task's own storage, not "
                        + settings);
            }
        }
        return drift;
    }

    /**
     * The executor's directories as the task sets them (and PUNCTUAL_SANDBOX), from the one literal local
     * {@code local.executor_environment} takes PUNCTUAL_WORK_DIR from; empty when there is no such one local.
     */
    Map<String, String> directories() {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> found = sandboxLocals();
        if (found.size() == 1) {
            tf.local(found.getFirst())
                    .orElseThrow()
                    .fields()
                    .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        }
        return out;
    }

    /** The task's directories are on the volume, neither inside the other, and the sandbox is on (root). */
    List<String> environment() {
        List<String> found = sandboxLocals();
        if (found.size() != 1) {
            return List.of(
                    "local.executor_environment must take PUNCTUAL_WORK_DIR from one literal local, found " + found);
        }
        List<String> drift = new ArrayList<>();
        Map<String, String> env = directories();
        for (String name : DIRECTORIES) {
            String dir = env.get(name);
            if (dir == null || !dir.startsWith(VOLUME + "/")) {
                drift.add("the executor's " + name + " must be under " + VOLUME + "/ (the task volume), not " + dir);
            }
        }
        String work = env.getOrDefault("PUNCTUAL_WORK_DIR", "");
        String sandbox = env.getOrDefault("PUNCTUAL_SANDBOX_DIR", "");
        if (!work.isEmpty()
                && !sandbox.isEmpty()
                && ((sandbox + "/").startsWith(work + "/") || (work + "/").startsWith(sandbox + "/"))) {
            drift.add("PUNCTUAL_WORK_DIR (executor only, 0700) and PUNCTUAL_SANDBOX_DIR (traversable by runs) must "
                    + "not contain one another: " + work + ", " + sandbox);
        }
        expect(drift, "the executor's PUNCTUAL_SANDBOX (it runs as root)", "true", env.get("PUNCTUAL_SANDBOX"));
        return drift;
    }

    /** The literal locals referenced by {@code local.executor_environment} that set PUNCTUAL_WORK_DIR. */
    private List<String> sandboxLocals() {
        Matcher refs = LOCAL_REF.matcher(
                tf.local("executor_environment").map(JsonNode::asText).orElse(""));
        List<String> out = new ArrayList<>();
        while (refs.find()) {
            if (tf.local(refs.group(1)).map(v -> v.has("PUNCTUAL_WORK_DIR")).orElse(false)) {
                out.add(refs.group(1));
            }
        }
        return out;
    }

    /**
     * An image: root in the final stage, application files not handed to another user, the volume declared, the
     * directories the task sets, the sandbox on, util-linux installed, the JVM writing nothing outside the volume.
     */
    static List<String> image(String name, Dockerfile image, Map<String, String> taskDirectories, boolean jvm) {
        List<String> drift = new ArrayList<>();
        List<String> users = image.finalStage("USER");
        String user = users.isEmpty() ? null : users.getLast().strip();
        if (user == null || !Set.of("0", "root", "0:0", "root:root").contains(user)) {
            drift.add(name + ": the final stage must run as USER 0 (root in its container), not " + user);
        }
        for (Dockerfile.Instruction i : image.instructions()) {
            Matcher chown = CHOWN.matcher(i.args());
            while (chown.find()) {
                if (!Set.of("0", "root", "0:0", "root:root").contains(chown.group(1))) {
                    drift.add(name + ": " + i.keyword() + " --chown=" + chown.group(1)
                            + ": the application must be root-owned, so no run's uid can change it");
                }
            }
        }
        boolean volume = image.finalStage("VOLUME").stream()
                .anyMatch(v -> List.of(v.replaceAll("[\\[\\]\",]", " ").strip().split("\\s+"))
                        .contains(VOLUME));
        if (!volume) {
            drift.add(name + ": no VOLUME " + VOLUME);
        }
        Map<String, String> env = image.environment();
        for (String dir : DIRECTORIES) {
            String value = env.get(dir);
            if (value == null || !value.startsWith(VOLUME + "/")) {
                drift.add(name + ": " + dir + " must be under " + VOLUME + "/, not " + value);
            } else if (!value.equals(taskDirectories.get(dir))) {
                drift.add(name + ": " + dir + " is " + value + ", the ECS task's is " + taskDirectories.get(dir));
            }
        }
        expect(drift, name + ": PUNCTUAL_SANDBOX (the image runs as root)", "true", env.get("PUNCTUAL_SANDBOX"));
        if (image.finalStage("RUN").stream()
                .noneMatch(r -> PACKAGE_INSTALL.matcher(r).find())) {
            drift.add(name + ": util-linux (setsid, setpriv, prlimit) is not installed");
        }
        List<String> startup = new ArrayList<>(env.values());
        startup.addAll(image.finalStage("ENTRYPOINT"));
        startup.addAll(image.finalStage("CMD"));
        if (startup.stream().noneMatch(s -> s.contains("-Djava.io.tmpdir=" + VOLUME + "/"))) {
            drift.add(name + ": java.io.tmpdir must be on the volume (-Djava.io.tmpdir=" + VOLUME + "/...)");
        }
        if (jvm && startup.stream().noneMatch(s -> s.contains("-XX:-UsePerfData"))) {
            drift.add(name + ": the JVM must run with -XX:-UsePerfData (no hsperfdata in /tmp)");
        }
        return drift;
    }

    private static void expect(List<String> drift, String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            drift.add(what + ": expected " + expected + ", found " + actual);
        }
    }
}
