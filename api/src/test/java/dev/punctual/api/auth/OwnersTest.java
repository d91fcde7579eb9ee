package dev.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OwnersTest {
    @Test
    void aTokensOwnerIsItsIssuerAndSubject() {
        assertThat(Owners.fromJwtClaims(Map.of("iss", "https://idp/", "sub", "u1", "aud", "x"), Optional.empty()))
                .isEqualTo("https://idp/|sub:u1");
    }

    @Test
    void aConfiguredClaimMakesTeamsAndCannotBeImpersonatedByASubjectOfTheSameName() {
        String team = Owners.fromJwtClaims(
                Map.of("iss", "https://idp/", "sub", "u1", "org_id", "acme"), Optional.of("org_id"));
        assertThat(team).isEqualTo("https://idp/|org_id:acme");
        assertThat(Owners.fromJwtClaims(
                        Map.of("iss", "https://idp/", "sub", "u2", "org_id", "acme"), Optional.of("org_id")))
                .isEqualTo(team);
        assertThat(Owners.fromJwtClaims(Map.of("iss", "https://idp/", "sub", "acme"), Optional.empty()))
                .isNotEqualTo(team);
        assertThat(Owners.fromJwtClaims(
                        Map.of("iss", "https://other/", "sub", "u1", "org_id", "acme"), Optional.of("org_id")))
                .isNotEqualTo(team);
    }

    @Test
    void missingOrUnusableClaimsAreUnauthenticated() {
        assertThatThrownBy(() -> Owners.fromJwtClaims(null, Optional.empty()))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> Owners.fromJwtClaims(Map.of("sub", "u"), Optional.empty()))
                .isInstanceOf(UnauthenticatedException.class)
                .hasMessageContaining("iss");
        assertThatThrownBy(() -> Owners.fromJwtClaims(Map.of("iss", "i", "sub", "u"), Optional.of("org_id")))
                .isInstanceOf(UnauthenticatedException.class)
                .hasMessageContaining("org_id");
        assertThatThrownBy(() -> Owners.fromJwtClaims(Map.of("iss", "i", "sub", " "), Optional.empty()))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> Owners.fromJwtClaims(Map.of("iss", "i", "sub", "x".repeat(600)), Optional.empty()))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> Owners.fromJwtClaims(Map.of("iss", "i", "sub", "a\nb"), Optional.empty()))
                .isInstanceOf(UnauthenticatedException.class);
    }

    @Test
    void iamPrincipalsDropTheirSessionOrCollapseToTheAccount() {
        assertThat(Owners.fromIam("arn:aws:sts::111122223333:assumed-role/deployer/s-1", "111122223333", false))
                .isEqualTo("arn:aws:iam::111122223333:role/deployer");
        assertThat(Owners.fromIam("arn:aws:iam::111122223333:user/ci", "111122223333", false))
                .isEqualTo("arn:aws:iam::111122223333:user/ci");
        assertThat(Owners.fromIam("arn:aws:sts::111122223333:assumed-role/deployer/s-1", "111122223333", true))
                .isEqualTo("aws-account:111122223333");
        assertThatThrownBy(() -> Owners.fromIam(null, null, false)).isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> Owners.fromIam("x", "12", true)).isInstanceOf(UnauthenticatedException.class);
    }
}
