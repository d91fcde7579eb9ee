package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.job.CommandLine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the executor refuses to launch, whatever the jobs table says: the API's own limits, checked again. */
class LaunchCheckTest {
    private static final String OWNER = "https://issuer.example|user-1";
    private static final String SHA = "ab".repeat(32);

    private static List<String> check(List<String> args, Map<String, String> env) {
        return LaunchCheck.problems(OWNER, SHA, args, env);
    }

    @Test
    void whatTheApiAcceptsPasses() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("GREETING", "hi there");
        env.put("_under", "");
        env.put("PATH", "/opt/bin");
        assertThat(check(List.of("one arg", "$HOME", "*", ""), env)).isEmpty();
        assertThat(check(Collections.nCopies(CommandLine.MAX_ARGS, "x".repeat(CommandLine.MAX_VALUE_LENGTH)), Map.of()))
                .isEmpty();
    }

    @Test
    void reservedPrefixesAreRefusedInAnyCase() {
        for (String name : List.of(
                "LD_PRELOAD",
                "ld_library_path",
                "AWS_SECRET_ACCESS_KEY",
                "Aws_Region",
                "SCHEDULER_RUN_ID",
                "scheduler_process_tag")) {
            assertThat(check(List.of(), Map.of(name, "x")))
                    .as(name)
                    .singleElement()
                    .asString()
                    .startsWith("env." + name + ": is reserved");
        }
    }

    @Test
    void malformedNamesAreRefusedAndShownWithoutTheirControlCharacters() {
        assertThat(check(List.of(), Map.of("1ABC", "x"))).containsExactly("env.1ABC: is not a valid variable name");
        assertThat(check(List.of(), Map.of("A=B", "x"))).containsExactly("env.A=B: is not a valid variable name");
        assertThat(check(List.of(), Map.of("", "x"))).containsExactly("env.: is not a valid variable name");
        assertThat(check(List.of(), Map.of("A\nB", "x"))).containsExactly("env.A?B: is not a valid variable name");
        assertThat(check(List.of(), Map.of("N".repeat(500) + "-", "x")))
                .singleElement()
                .asString()
                .startsWith("env." + "N".repeat(64) + "…: ")
                .hasSizeLessThan(120);
    }

    @Test
    void valuesMustBeStringsOfAtMostTheLimitWithoutNul() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("NULL_VALUE", null);
        env.put("LONG", "x".repeat(CommandLine.MAX_VALUE_LENGTH + 1));
        env.put("NUL", "a\0b");
        assertThat(check(List.of(), env))
                .containsExactly(
                        "env.NULL_VALUE: is not a string",
                        "env.LONG: is longer than " + CommandLine.MAX_VALUE_LENGTH + " characters",
                        "env.NUL: contains NUL");

        List<String> args = new ArrayList<>(List.of("fine", "a\0b"));
        args.add(null);
        args.add("y".repeat(CommandLine.MAX_VALUE_LENGTH + 1));
        assertThat(check(args, Map.of()))
                .containsExactly(
                        "args[1]: contains NUL",
                        "args[2]: is not a string",
                        "args[3]: is longer than " + CommandLine.MAX_VALUE_LENGTH + " characters");
    }

    @Test
    void tooManyArgsOrVariablesAreRefused() {
        assertThat(check(Collections.nCopies(CommandLine.MAX_ARGS + 1, "x"), Map.of()))
                .containsExactly("args: " + (CommandLine.MAX_ARGS + 1) + " items, more than " + CommandLine.MAX_ARGS);
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i <= CommandLine.MAX_ENV; i++) {
            env.put("V" + i, "x");
        }
        assertThat(check(List.of(), env))
                .containsExactly("env: " + (CommandLine.MAX_ENV + 1) + " entries, more than " + CommandLine.MAX_ENV);
    }

    @Test
    void aJobWithoutOwnerOrWithAMalformedBinaryHashIsRefused() {
        assertThat(LaunchCheck.problems(null, SHA, List.of(), Map.of())).containsExactly("owner: is missing");
        assertThat(LaunchCheck.problems(OWNER, "AB".repeat(32), List.of(), Map.of()))
                .containsExactly("binarySha256: is not 64 lowercase hex digits");
        assertThat(LaunchCheck.problems(OWNER, "../../etc/passwd", null, null))
                .containsExactly("binarySha256: is not 64 lowercase hex digits", "args: is missing", "env: is missing");
    }
}
