package dev.punctual.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code bin/local-token SUBJECT}: prints a token that a runner started with {@code --auth} accepts. */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        description = "Prints a JWT for SUBJECT, signed with the local runner's key (see --auth).")
class TokenCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The token's subject: with the default rule, the tenant.")
    String subject;

    @Option(
            names = "--ttl",
            defaultValue = "PT12H",
            description = "How long the token is valid. Default: ${DEFAULT-VALUE}")
    Duration ttl;

    @Option(
            names = "--claim",
            description = "An extra string claim NAME=VALUE (e.g. tenant=acme, for "
                    + "PUNCTUAL_AUTH_TENANT_CLAIM=tenant); repeatable.")
    Map<String, String> claims = new LinkedHashMap<>();

    @Option(names = "--auth-key", description = "The runner's key file. Default: ~/.punctual/local-auth-key.jwk")
    Path authKey;

    @Override
    public Integer call() throws Exception {
        if (subject.isBlank() || ttl.isNegative() || ttl.isZero()) {
            System.err.println("SUBJECT must not be blank and --ttl must be positive");
            return 2;
        }
        LocalAuth auth = LocalAuth.loadOrCreate(authKey != null ? authKey : LocalAuth.DEFAULT_KEY);
        System.out.println(auth.issue(subject, ttl, claims));
        return 0;
    }
}
