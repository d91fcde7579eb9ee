package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * What every command shares: where to print, and how to reach the API. The API's URL and token come from the
 * command line, else the environment ({@value #URL_ENV}, {@value #TOKEN_ENV}), else the profile file, else the local
 * runner's address and no token.
 */
final class Cli {
    static final String URL_ENV = "PUNCTUAL_API_URL";
    static final String TOKEN_ENV = "PUNCTUAL_TOKEN";
    static final String PROFILE_ENV = "PUNCTUAL_PROFILE";
    static final String CONFIG_ENV = "PUNCTUAL_CONFIG";
    static final String LOCAL_API = "http://127.0.0.1:8080";

    /** How answers are printed: tables for people, the API's JSON for scripts, or that JSON as YAML. */
    enum Output {
        table,
        json,
        yaml
    }

    final PrintWriter out;
    final PrintWriter err;
    private final Map<String, String> env;
    private final Path home;

    String apiUrl;
    String token;
    String profile;
    Path config;
    Output output = Output.table;
    private ApiClient api;

    Cli(PrintWriter out, PrintWriter err, Map<String, String> env, Path home) {
        this.out = out;
        this.err = err;
        this.env = env;
        this.home = home;
    }

    boolean json() {
        return output == Output.json;
    }

    /**
     * The API's answer as JSON with {@code -o json}, as YAML with {@code -o yaml} (what {@code job apply} takes back);
     * else what {@code table} prints of it.
     */
    void print(JsonNode answer, Consumer<PrintWriter> table) {
        switch (output) {
            case json -> out.println(answer.toPrettyString());
            case yaml -> out.print(Yaml.write(answer));
            case table -> table.accept(out);
        }
    }

    /** {@link #print} for a list of items. */
    void print(List<JsonNode> items, Consumer<PrintWriter> table) {
        JsonNode array = ApiClient.JSON.valueToTree(items);
        print(array, table);
    }

    /** Closes the API's client, if one was made. */
    void close() {
        if (api != null) {
            api.close();
        }
    }

    /** The client, made at first use from the settings as resolved then. */
    ApiClient api() {
        if (api == null) {
            Settings s = settings();
            api = new ApiClient(s.apiUrl(), s.token(), s.source());
        }
        return api;
    }

    /** Where the API is and the token to send, resolved in the order the class comment gives. */
    record Settings(String apiUrl, String token, String source) {}

    Settings settings() {
        Properties file = profileFile();
        String name = first(profile, env.get(PROFILE_ENV), "default");
        String url = first(apiUrl, env.get(URL_ENV), file.getProperty(name + ".api-url"), LOCAL_API);
        String tok = first(token, env.get(TOKEN_ENV), file.getProperty(name + ".token"));
        String source = apiUrl != null
                ? "--api-url"
                : env.get(URL_ENV) != null
                        ? URL_ENV
                        : file.getProperty(name + ".api-url") != null
                                ? "profile " + name + " in " + configPath()
                                : "the default, the local runner's";
        return new Settings(url.endsWith("/") ? url.substring(0, url.length() - 1) : url, tok, source);
    }

    /** The profile file: --config, else $PUNCTUAL_CONFIG, else ~/.config/punctual/config.properties. */
    Path configPath() {
        if (config != null) {
            return config;
        }
        String fromEnv = env.get(CONFIG_ENV);
        return fromEnv != null ? Path.of(fromEnv) : home.resolve(".config/punctual/config.properties");
    }

    private Properties profileFile() {
        Properties p = new Properties();
        Path path = configPath();
        if (Files.isRegularFile(path)) {
            try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new UsageException("cannot read the profile file " + path + ": " + e.getMessage());
            }
        } else if (config != null || env.get(CONFIG_ENV) != null) {
            throw new UsageException("the profile file " + path + " does not exist");
        }
        return p;
    }

    private static String first(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return null;
    }

    /** A mistake in how the command was called or configured (exit {@link Exit#USAGE}). */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
