package dev.punctual.core.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.WebhookMode;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a tenant's webhook URL may aim at: nothing inside the operator's network, in any spelling of an address. */
class WebhookTargetsTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "10.1.2.3",
                "172.16.0.1",
                "192.168.1.1",
                "169.254.169.254",
                "169.254.170.2",
                "100.64.0.1",
                "0.0.0.0",
                "198.18.0.1",
                "192.0.0.1",
                "240.0.0.1",
                "255.255.255.255",
                "224.0.0.1",
                "::1",
                "::",
                "fe80::1",
                "fd00:ec2::254",
                "fc00::1",
                "::ffff:127.0.0.1",
                "::ffff:10.0.0.1",
                "64:ff9b::a9fe:a9fe"
            })
    void privateLoopbackLinkLocalAndReservedAddressesAreNotPublic(String address) throws UnknownHostException {
        assertThat(WebhookTargets.isPublic(InetAddress.getByName(address))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "100.128.0.1", "172.32.0.1", "2606:4700:4700::1111"})
    void addressesOfThePublicInternetArePublic(String address) throws UnknownHostException {
        assertThat(WebhookTargets.isPublic(InetAddress.getByName(address))).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "http://hooks.example.com/x | must be an https URL",
                "ftp://hooks.example.com/x | must be an https URL",
                "https://user:pw@hooks.example.com/x | must not carry a user or password",
                "https:///x | has no host",
                "https://hooks.example.com/x#frag | must not have a fragment",
                "https://127.0.0.1/x | is not a public address",
                "https://169.254.169.254/latest/meta-data | is not a public address",
                "https://[::1]:8443/x | is not a public address",
                "https://[fd00:ec2::254]/ | is not a public address",
                "not a url at all | is not a URL: Illegal character in path",
            })
    void aUrlThatCouldReachInsideIsRefusedAtCreate(String url, String problem) {
        assertThat(WebhookTargets.problem(url, WebhookMode.PUBLIC)).hasValue(problem);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"https://hooks.example.com/punctual?team=a", "https://8.8.8.8/x", "https://example.com:8443/"})
    void anHttpsUrlOfAPublicHostIsAccepted(String url) {
        assertThat(WebhookTargets.problem(url, WebhookMode.PUBLIC)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://localhost/x", "https://127.0.0.1.nip.invalid/x"})
    void aHostThatResolvesInsideOrNowhereIsRefusedBeforeAPost(String url) {
        assertThat(WebhookTargets.refusal(URI.create(url), WebhookMode.PUBLIC)).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1:8080/hook", "http://localhost/x", "https://10.0.0.1/"})
    void anyLetsADevelopersMachinePostToItself(String url) {
        assertThat(WebhookTargets.problem(url, WebhookMode.ANY)).isEmpty();
        assertThat(WebhookTargets.refusal(URI.create(url), WebhookMode.ANY)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com/x", "http://127.0.0.1/"})
    void offRefusesEveryWebhook(String url) {
        assertThat(WebhookTargets.problem(url, WebhookMode.OFF))
                .hasValueSatisfying(p -> assertThat(p).contains("off"));
    }
}
