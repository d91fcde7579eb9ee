package dev.punctual.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.jose4j.jwk.EcJwkGenerator;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.EllipticCurves;
import org.jose4j.lang.JoseException;

/**
 * The local runner's own token issuer for {@code --auth}: an ES256 key made once and kept in a file only its user
 * can read, tokens signed with it ({@code bin/local-token}), and their verification. It stands in for the identity
 * provider behind API Gateway's JWT authorizer, so the same claims make the same tenant locally and in AWS.
 */
final class LocalAuth {
    static final String ISSUER = "punctual-local";
    static final String AUDIENCE = "punctual-local";
    static final Path DEFAULT_KEY = Path.of(System.getProperty("user.home"), ".punctual", "local-auth-key.jwk");
    /** Clock skew tolerated on {@code exp} and {@code nbf}. */
    private static final int SKEW_SECONDS = 30;

    private final PublicJsonWebKey key;

    private LocalAuth(PublicJsonWebKey key) {
        this.key = key;
    }

    /** Loads the key at {@code file}, creating it (0600, in a 0700 directory) the first time. */
    static LocalAuth loadOrCreate(Path file) throws IOException {
        try {
            if (Files.exists(file)) {
                return new LocalAuth(PublicJsonWebKey.Factory.newPublicJwk(Files.readString(file)));
            }
            PublicJsonWebKey jwk = EcJwkGenerator.generateJwk(EllipticCurves.P256);
            jwk.setKeyId("punctual-local-1");
            Path dir = file.toAbsolutePath().getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            Path tmp = Files.createTempFile(
                    dir,
                    ".key",
                    ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(
                    tmp,
                    jwk.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE),
                    StandardOpenOption.TRUNCATE_EXISTING);
            try {
                // Two starts racing: the first rename wins and both then use the file that is there.
                Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                if (!Files.exists(file)) {
                    throw e;
                }
            }
            return new LocalAuth(PublicJsonWebKey.Factory.newPublicJwk(Files.readString(file)));
        } catch (JoseException e) {
            throw new IOException("the local auth key " + file + " is not a usable JWK: " + e.getMessage(), e);
        }
    }

    /** A token for {@code subject}, valid for {@code ttl}, with extra string claims (e.g. a tenant claim). */
    String issue(String subject, Duration ttl, Map<String, String> extraClaims) {
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(ISSUER);
        claims.setAudience(AUDIENCE);
        claims.setSubject(subject);
        claims.setIssuedAtToNow();
        claims.setNotBeforeMinutesInThePast(0);
        claims.setExpirationTimeMinutesInTheFuture(ttl.toSeconds() / 60f);
        claims.setGeneratedJwtId();
        extraClaims.forEach(claims::setStringClaim);
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivateKey());
        jws.setKeyIdHeaderValue(key.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException("could not sign a token", e);
        }
    }

    /**
     * The verified claims of a compact JWT: signature (ES256 only, with this key), issuer, audience, expiry.
     *
     * @throws InvalidToken with a short reason a client may see
     */
    Map<String, Object> verify(String token) throws InvalidToken {
        JwtConsumer consumer = new JwtConsumerBuilder()
                .setRequireExpirationTime()
                .setRequireSubject()
                .setAllowedClockSkewInSeconds(SKEW_SECONDS)
                .setExpectedIssuer(ISSUER)
                .setExpectedAudience(AUDIENCE)
                .setVerificationKey(key.getPublicKey())
                .setJwsAlgorithmConstraints(
                        org.jose4j.jwa.AlgorithmConstraints.ConstraintType.PERMIT,
                        AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256)
                .build();
        try {
            return consumer.processToClaims(token).getClaimsMap();
        } catch (InvalidJwtException e) {
            try {
                if (e.hasExpired()) {
                    throw new InvalidToken("the token expired at "
                            + e.getJwtContext().getJwtClaims().getExpirationTime());
                }
            } catch (MalformedClaimException ignored) {
                // fall through to the generic reason
            }
            throw new InvalidToken("the token is not valid for this API (signature, issuer " + ISSUER + ", audience "
                    + AUDIENCE + " and expiry are checked)");
        }
    }

    static final class InvalidToken extends Exception {
        InvalidToken(String message) {
            super(message);
        }
    }
}
