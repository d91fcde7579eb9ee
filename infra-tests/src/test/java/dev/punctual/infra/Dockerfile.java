package dev.punctual.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Dockerfile as a list of instructions (continuation lines joined, comments dropped), enough for the contract
 * checks: which instructions the final stage has, and the environment it sets. Not a full parser: no here-docs, no
 * escape directive.
 */
final class Dockerfile {
    static final Path DIR = Terraform.PROJECT.resolve("executor/src/main/docker");

    record Instruction(String keyword, String args) {}

    private final List<Instruction> instructions;

    private Dockerfile(List<Instruction> instructions) {
        this.instructions = instructions;
    }

    static Dockerfile load(String name) throws IOException {
        return parse(Files.readString(DIR.resolve(name)));
    }

    static Dockerfile parse(String text) {
        List<Instruction> out = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String raw : text.split("\n", -1)) {
            String trimmed = raw.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && line.isEmpty())) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                line.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            line.append(trimmed);
            String logical = line.toString().strip();
            line.setLength(0);
            if (!logical.isEmpty()) {
                String[] parts = logical.split("\\s+", 2);
                out.add(new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : ""));
            }
        }
        return new Dockerfile(out);
    }

    List<Instruction> instructions() {
        return instructions;
    }

    /** The instructions after the last FROM: what the image that runs is made of. */
    List<Instruction> finalStage() {
        int last = 0;
        for (int i = 0; i < instructions.size(); i++) {
            if (instructions.get(i).keyword().equals("FROM")) {
                last = i;
            }
        }
        return instructions.subList(last, instructions.size());
    }

    /** The final stage's instructions with this keyword. */
    List<String> finalStage(String keyword) {
        return finalStage().stream()
                .filter(i -> i.keyword().equals(keyword))
                .map(Instruction::args)
                .toList();
    }

    /** The environment the final stage sets ({@code ENV k=v k2="v 2"} and the old {@code ENV k v}). */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String args : finalStage("ENV")) {
            if (!args.matches("^[A-Za-z_][A-Za-z0-9_]*=.*")) {
                String[] kv = args.split("\\s+", 2);
                env.put(kv[0], kv.length > 1 ? unquote(kv[1]) : "");
                continue;
            }
            for (String pair : words(args)) {
                int eq = pair.indexOf('=');
                env.put(pair.substring(0, eq), unquote(pair.substring(eq + 1)));
            }
        }
        return env;
    }

    /** Whitespace-separated words, a double-quoted part kept whole. */
    private static List<String> words(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            }
            if (Character.isWhitespace(c) && !quoted) {
                if (!w.isEmpty()) {
                    out.add(w.toString());
                    w.setLength(0);
                }
            } else {
                w.append(c);
            }
        }
        if (!w.isEmpty()) {
            out.add(w.toString());
        }
        return out;
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }
}
