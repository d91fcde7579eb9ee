package dev.punctual.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the project's Markdown documents name in code spans, checked against the project's files: a file path
 * ({@code core/.../notify/RunNotice.java}, {@code exec/Preparation.java}), a type of two words or more
 * ({@code AttemptRunner}, {@code exec/JobCheck}, {@code RunWorker.Slot}), a route ({@code /v1/jobs/{id}}) and a
 * setting or metric ({@code punctual.executor-prime-calls}). A name is found if it exists; names from outside the
 * project (AWS operations, JDK classes, the peers') are listed in {@link #EXTERNAL}. Its links too: a relative link
 * leads to a file or directory of the project, and its {@code #fragment} to a heading of the Markdown it leads to.
 */
final class DocReferences {
    /** A doc's reference that names nothing of the project. */
    record Stale(String doc, String reference, String kind) {
        @Override
        public String toString() {
            return doc + ": `" + reference + "` (" + kind + ")";
        }
    }

    /**
     * Two-word names the documents use that are not the project's types: AWS API operations, parameters and
     * attributes; JDK and library classes; the peers' classes; a field of {@code /proc}.
     */
    static final Set<String> EXTERNAL = Set.of(
            // DynamoDB, SQS, S3 and ECS operations, parameters and attributes
            "BatchExecuteStatement",
            "BatchGetItem",
            "BatchStatementError",
            "BatchWriteItem",
            "ConditionCheck",
            "ConditionalCheckFailed",
            "DeleteMessage",
            "DeleteMessageBatch",
            "DeleteObject",
            "GetItem",
            "GetQueueAttributes",
            "PutObject",
            "ReceiveMessage",
            "SendMessageBatch",
            "TransactWriteItems",
            "UpdateItem",
            "DelaySeconds",
            "WaitTimeSeconds",
            "ApproximateNumberOfMessagesVisible",
            "ApproximateNumberOfMessagesNotVisible",
            "StartAfter",
            "RunningTaskCount",
            // JDK, the AWS SDK and the peers
            "BufferedReader",
            "HttpClient",
            "ProcessBuilder",
            "ExecutionInterceptor",
            "SchedulerClient",
            "JobStoreTX",
            // /proc/<pid>/status
            "VmHWM");

    private static final Pattern SPAN = Pattern.compile("`([^`\n]+)`");
    private static final Pattern FILE = Pattern.compile(
            "[A-Za-z0-9_.-]*(?:/|\\.\\.\\.)[A-Za-z0-9_./-]*\\.(?:java|c|h|sh|tf|md|properties|mjs|js|css|html|json|yml)");
    private static final Pattern TYPE = Pattern.compile(
            "(?:[a-z0-9]+/)*([A-Z][a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)(?:[.#][A-Za-z][A-Za-z0-9]*)*(?:\\(\\))?");
    private static final Pattern ROUTE = Pattern.compile("(?:GET |POST |PUT |DELETE |PATCH )?(/v1/[^\\s?]*)");
    private static final Pattern SETTING = Pattern.compile("punctual\\.[a-z0-9.-]*[a-z0-9]");
    private static final Pattern DECLARED =
            Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z][A-Za-z0-9_]*)");

    private final Path project;
    private final List<String> files;
    private final Set<String> types = new HashSet<>();
    private final Set<String> sourceStrings = new HashSet<>();
    private final Set<String> methods = new HashSet<>();
    private final Set<String> routes;
    /** The headings' anchors of each Markdown file a link led to, read once. */
    private final java.util.Map<Path, Set<String>> anchorsOf = new java.util.HashMap<>();

    /** {@code routes}: the API's route paths, without their verbs. */
    DocReferences(Path project, Set<String> routes) throws IOException {
        this.project = project;
        this.routes = new HashSet<>();
        routes.forEach(r -> this.routes.add(withoutParameterNames(r)));
        try (Stream<Path> walk = Files.walk(project)) {
            this.files = walk.filter(Files::isRegularFile)
                    .map(p -> project.relativize(p).toString())
                    .filter(p -> !p.startsWith(".") && !p.contains("/.") && !p.contains("node_modules/"))
                    .filter(p -> !p.startsWith("target/") && !p.contains("/target/"))
                    .toList();
        }
        Pattern quoted = Pattern.compile("\"([^\"\\n]+)\"");
        Pattern method = Pattern.compile("\\b([a-z][A-Za-z0-9]*)\\(");
        for (String f : files) {
            if (f.endsWith(".java")) {
                String src = Files.readString(project.resolve(f));
                DECLARED.matcher(src).results().forEach(m -> types.add(m.group(1)));
                quoted.matcher(src).results().forEach(m -> sourceStrings.add(m.group(1)));
                method.matcher(src).results().forEach(m -> methods.add(m.group(1)));
            }
        }
    }

    /** The Markdown documents of the project (build output and dependencies aside). */
    List<String> docs() {
        return files.stream().filter(f -> f.endsWith(".md")).sorted().toList();
    }

    /** What {@code doc} names that the project does not have. */
    List<Stale> stale(String doc) {
        String text;
        try {
            text = Files.readString(project.resolve(doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String dir = doc.contains("/") ? doc.substring(0, doc.lastIndexOf('/') + 1) : "";
        List<Stale> out = new ArrayList<>();
        Matcher spans = SPAN.matcher(text);
        while (spans.find()) {
            for (String word : spans.group(1).strip().split("[\\s,;()]+")) {
                String t = word.replaceAll("[.:]+$", "");
                if (FILE.matcher(t).matches()) {
                    if (!isFile(t, dir)) {
                        out.add(new Stale(doc, t, "file"));
                    }
                } else if (TYPE.matcher(t).matches()) {
                    Matcher m = TYPE.matcher(t);
                    m.matches();
                    String name = m.group(1);
                    if (!types.contains(name) && !EXTERNAL.contains(name)) {
                        out.add(new Stale(doc, t, "type"));
                    }
                }
            }
            String span = spans.group(1).strip();
            Matcher route = ROUTE.matcher(span);
            if (route.matches() && !routes.contains(withoutParameterNames(route.group(1)))) {
                out.add(new Stale(doc, span, "route"));
            }
            Matcher setting = SETTING.matcher(span);
            if (setting.lookingAt() && !isSetting(setting.group())) {
                out.add(new Stale(doc, setting.group(), "setting or metric"));
            }
        }
        return out;
    }

    /** {@code /v1/jobs/{}} for {@code /v1/jobs/{id}}: a doc may name a path parameter as it likes. */
    static String withoutParameterNames(String path) {
        return path.replaceAll("\\{[^}]*}", "{}").replaceAll("/$", "");
    }

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("#+ (.*)");

    /** The links of {@code doc} (outside code blocks) that lead nowhere in the project. */
    List<Stale> brokenLinks(String doc) throws IOException {
        List<Stale> out = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(project.resolve(doc))) {
            if (line.startsWith("```")) {
                code = !code;
            }
            if (code) {
                continue;
            }
            Matcher m = LINK.matcher(line);
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^(https?|mailto):.*")) {
                    continue;
                }
                int hash = link.indexOf('#');
                String path = hash < 0 ? link : link.substring(0, hash);
                Path target = path.isEmpty()
                        ? project.resolve(doc)
                        : project.resolve(doc).getParent().resolve(path).normalize();
                if (!target.startsWith(project) || !Files.exists(target)) {
                    out.add(new Stale(doc, link, "link"));
                } else if (hash >= 0
                        && target.toString().endsWith(".md")
                        && !anchorsOf(target).contains(link.substring(hash + 1))) {
                    out.add(new Stale(doc, link, "link's heading"));
                }
            }
        }
        return out;
    }

    /** The anchors GitHub gives the headings of a Markdown file: lower case, punctuation dropped, spaces as dashes. */
    private Set<String> anchorsOf(Path markdown) throws IOException {
        Set<String> known = anchorsOf.get(markdown);
        if (known == null) {
            known = anchors(markdown);
            anchorsOf.put(markdown, known);
        }
        return known;
    }

    static Set<String> anchors(Path markdown) throws IOException {
        Set<String> out = new HashSet<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                code = !code;
            }
            Matcher h = HEADING.matcher(line);
            if (!code && h.matches()) {
                out.add(h.group(1)
                        .strip()
                        .toLowerCase(java.util.Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-'));
            }
        }
        return out;
    }

    /**
     * A path from the project's root or the doc's directory, or the end of one ({@code notify/RunNotice.java}), with
     * {@code ...} standing for any directories. Build output ({@code target/}) is not checked.
     */
    private boolean isFile(String path, String dir) {
        if (path.startsWith("target/") || path.contains("/target/") || path.startsWith("/")) {
            return true;
        }
        String p = path.startsWith("./") ? path.substring(2) : path;
        if (p.contains("...")) {
            StringBuilder rx = new StringBuilder("(?:.*/)?");
            String[] parts = p.split("\\.\\.\\.", -1);
            for (int i = 0; i < parts.length; i++) {
                rx.append(Pattern.quote(parts[i].replaceAll("^/|/$", "")));
                if (i < parts.length - 1) {
                    rx.append("/(?:.*/)?");
                }
            }
            Pattern any = Pattern.compile(rx.toString());
            return files.stream().anyMatch(f -> any.matcher(f).matches());
        }
        return files.contains(p) || files.contains(dir + p) || files.stream().anyMatch(f -> f.endsWith("/" + p));
    }

    /**
     * A key of wiring's configuration mapping ({@code punctual.executor-prime-calls}: a method
     * {@code executorPrimeCalls} of it; or a name it gives, {@code @WithName("events.source")}) or a name written in
     * the code (a key of core's SettingsSource table, {@code "retry-base"}; a metric's).
     */
    private boolean isSetting(String key) {
        String rest = key.substring("punctual.".length());
        if (sourceStrings.contains(key) || sourceStrings.contains(rest)) {
            return true;
        }
        for (String part : rest.split("\\.")) {
            String camel = Pattern.compile("-([a-z0-9])")
                    .matcher(part)
                    .replaceAll(r -> r.group(1).toUpperCase());
            if (!methods.contains(camel)) {
                return false;
            }
        }
        return true;
    }
}
