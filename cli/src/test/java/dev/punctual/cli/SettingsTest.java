package dev.punctual.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the command finds the API and its token: flags, then environment, then the profile file, then local. */
class SettingsTest {
    @TempDir
    Path home;

    private final Map<String, String> env = new HashMap<>();

    private Cli cli() {
        return new Cli(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), env, home);
    }

    private void profileFile(String text) throws Exception {
        Path file = home.resolve(".config/punctual/config.properties");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    @Test
    void withNothingSetItIsTheLocalRunnerWithoutAToken() {
        Cli.Settings s = cli().settings();
        assertThat(s.apiUrl()).isEqualTo("http://127.0.0.1:8080");
        assertThat(s.token()).isNull();
        assertThat(s.source()).isEqualTo("the default, the local runner's");
    }

    @Test
    void flagsWinOverTheEnvironmentWhichWinsOverTheProfileFile() throws Exception {
        profileFile("default.api-url=https://file.example/\ndefault.token=from-file\n");
        assertThat(cli().settings())
                .isEqualTo(new Cli.Settings(
                        "https://file.example",
                        "from-file",
                        "profile default in " + home.resolve(".config/punctual/config.properties")));

        env.put(Cli.URL_ENV, "https://env.example");
        env.put(Cli.TOKEN_ENV, "from-env");
        assertThat(cli().settings()).isEqualTo(new Cli.Settings("https://env.example", "from-env", Cli.URL_ENV));

        Cli flagged = cli();
        flagged.apiUrl = "https://flag.example";
        flagged.token = "from-flag";
        assertThat(flagged.settings()).isEqualTo(new Cli.Settings("https://flag.example", "from-flag", "--api-url"));
    }

    @Test
    void aProfileIsChosenByFlagOrEnvironment() throws Exception {
        profileFile("default.api-url=https://dev.example\nprod.api-url=https://prod.example\nprod.token=p\n");
        env.put(Cli.PROFILE_ENV, "prod");
        assertThat(cli().settings().apiUrl()).isEqualTo("https://prod.example");
        assertThat(cli().settings().token()).isEqualTo("p");

        Cli flagged = cli();
        flagged.profile = "default";
        assertThat(flagged.settings().apiUrl()).isEqualTo("https://dev.example");
        assertThat(flagged.settings().token()).isNull();
    }

    @Test
    void aProfileFileNamedButMissingIsAUsageError() {
        env.put(Cli.CONFIG_ENV, home.resolve("nope.properties").toString());
        assertThatThrownBy(() -> cli().settings())
                .isInstanceOf(Cli.UsageException.class)
                .hasMessageContaining("nope.properties");
    }
}
