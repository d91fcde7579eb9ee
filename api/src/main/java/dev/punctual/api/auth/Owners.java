package dev.punctual.api.auth;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a verified identity becomes an owner (tenant). One rule for every deployable, so a token means the same
 * tenant on API Gateway and on the local runner.
 * <ul>
 * <li>JWT: {@code <iss>|<claim>:<value>}, by default {@code <iss>|sub:<sub>}. The issuer is part of the owner so
 *     that two identity providers' subjects never meet, and the claim's name is, so that a subject can never pose
 *     as a team of the same name when a tenant claim is configured.</li>
 * <li>IAM: the caller's principal with the session dropped ({@code arn:aws:iam::<acct>:role/<name>} for an assumed
 *     role, so every session of a role is one tenant), or {@code aws-account:<acct>}.</li>
 * </ul>
 */
public final class Owners {
    /** Owners are stored in keys (the jobs' {@code byOwner} index): bounded well below DynamoDB's 2,048 bytes. */
    public static final int MAX_LENGTH = 512;

    private static final Pattern ASSUMED_ROLE =
            Pattern.compile("arn:(aws[a-z-]*):sts::(\\d{12}):assumed-role/([^/]+)/.*");

    private Owners() {}

    /**
     * The owner named by a verified token's claims.
     *
     * @param tenantClaim the claim naming the tenant, or empty for the subject
     * @throws UnauthenticatedException when a claim the rule needs is missing or unusable
     */
    public static String fromJwtClaims(Map<String, ?> claims, Optional<String> tenantClaim) {
        if (claims == null || claims.isEmpty()) {
            throw new UnauthenticatedException("a bearer token is required (Authorization: Bearer <JWT>)");
        }
        String iss = text(claims.get("iss"));
        if (iss == null) {
            throw new UnauthenticatedException("the token has no issuer (iss)");
        }
        String claim = tenantClaim.filter(c -> !c.isBlank()).orElse("sub");
        String value = text(claims.get(claim));
        if (value == null) {
            throw new UnauthenticatedException("the token has no " + claim + " claim, which names the tenant");
        }
        return checked(iss + "|" + claim + ":" + value);
    }

    /**
     * The owner of a request signed by an IAM principal.
     *
     * @param byAccount one tenant per AWS account instead of per principal
     * @throws UnauthenticatedException when the request was not signed by an IAM principal
     */
    public static String fromIam(String userArn, String accountId, boolean byAccount) {
        if (byAccount) {
            if (accountId == null || !accountId.matches("\\d{12}")) {
                throw new UnauthenticatedException("the request is not signed by an AWS account (SigV4)");
            }
            return "aws-account:" + accountId;
        }
        if (userArn == null || userArn.isBlank()) {
            throw new UnauthenticatedException("the request is not signed by an IAM principal (SigV4)");
        }
        Matcher m = ASSUMED_ROLE.matcher(userArn);
        return checked(m.matches() ? "arn:" + m.group(1) + ":iam::" + m.group(2) + ":role/" + m.group(3) : userArn);
    }

    private static String text(Object value) {
        if (value == null) {
            return null;
        }
        String s = value.toString();
        return s.isBlank() ? null : s;
    }

    private static String checked(String owner) {
        if (owner.length() > MAX_LENGTH || owner.chars().anyMatch(Character::isISOControl)) {
            throw new UnauthenticatedException("the identity is too long or contains control characters");
        }
        return owner;
    }
}
