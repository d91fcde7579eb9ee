package dev.punctual.core.notify;

import dev.punctual.core.config.WebhookMode;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a webhook may post. A tenant names the URL, and the deliverer (an executor, the sweeper) sits inside the
 * operator's network with credentials at hand: a URL aimed at a private, loopback or link-local address (the
 * instance metadata service, the container credentials endpoint, a Lambda's runtime API, a VPC's own services) would
 * make it a proxy into that network. So a URL must be https, name no user, and every address its host resolves to
 * must be public; checked at create (the syntax, and an address written as such) and again right before each post
 * (the host's addresses now). {@link WebhookMode#ANY} lifts the address and scheme rules for a developer's machine.
 */
public final class WebhookTargets {
    public static final int MAX_URL_LENGTH = 2048;

    private WebhookTargets() {}

    /** Why {@code url} cannot be a webhook under {@code mode}; empty when it can (as far as can be told unresolved). */
    public static Optional<String> problem(String url, WebhookMode mode) {
        if (mode == WebhookMode.OFF) {
            return Optional.of("webhooks are off in this deployment (punctual.webhooks = off)");
        }
        if (url == null || url.isBlank()) {
            return Optional.of("is required");
        }
        if (url.length() > MAX_URL_LENGTH) {
            return Optional.of("is longer than " + MAX_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.of("is not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !(mode == WebhookMode.ANY && scheme.equals("http"))) {
            return Optional.of("must be an https URL");
        }
        if (uri.getRawUserInfo() != null) {
            return Optional.of("must not carry a user or password");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return Optional.of("has no host");
        }
        if (uri.getRawFragment() != null) {
            return Optional.of("must not have a fragment");
        }
        if (mode == WebhookMode.PUBLIC && isLiteralAddress(uri.getHost())) {
            try {
                InetAddress a = InetAddress.getByName(uri.getHost());
                if (!isPublic(a)) {
                    return Optional.of("is not a public address");
                }
            } catch (UnknownHostException e) {
                return Optional.of("is not a valid address");
            }
        }
        return Optional.empty();
    }

    /**
     * Why {@code url} must not be posted to now: its host's current addresses (empty: go ahead). The JVM keeps a
     * successful lookup for 30 s ({@code networkaddress.cache.ttl}), so the post that follows connects to an address
     * checked here, not to one a hostile DNS server hands out a moment later.
     */
    public static Optional<String> refusal(URI url, WebhookMode mode) {
        Optional<String> p = problem(url.toString(), mode);
        if (p.isPresent() || mode == WebhookMode.ANY) {
            return p;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(url.getHost())) {
                if (!isPublic(a)) {
                    return Optional.of(url.getHost() + " resolves to " + a.getHostAddress() + ", not a public address");
                }
            }
            return Optional.empty();
        } catch (UnknownHostException e) {
            return Optional.of(url.getHost() + " does not resolve");
        }
    }

    /** Whether {@code a} is an address of the public internet (none of the reserved, private or local ranges). */
    static boolean isPublic(InetAddress a) {
        if (a.isAnyLocalAddress()
                || a.isLoopbackAddress()
                || a.isLinkLocalAddress()
                || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int x = b[0] & 0xff;
            int y = b[1] & 0xff;
            return x != 0 // "this" network
                    && !(x == 100 && (y & 0xc0) == 64) // 100.64.0.0/10, carrier-grade NAT
                    && !(x == 192 && y == 0 && (b[2] & 0xff) == 0) // 192.0.0.0/24, protocol assignments
                    && !(x == 198 && (y & 0xfe) == 18) // 198.18.0.0/15, benchmarking
                    && x < 240; // 240.0.0.0/4 reserved, and broadcast
        }
        if (a instanceof Inet6Address) {
            if ((b[0] & 0xfe) == 0xfc) {
                return false; // fc00::/7, unique local (AWS's IPv6 metadata address fd00:ec2::254 among them)
            }
            if (isEmbeddingV4(b)) {
                try {
                    return isPublic(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
                } catch (UnknownHostException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64): judged by the IPv4 address they carry. */
    private static boolean isEmbeddingV4(byte[] b) {
        boolean mapped = true;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        mapped &= (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        boolean nat64 =
                (b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
        for (int i = 4; nat64 && i < 12; i++) {
            nat64 = b[i] == 0;
        }
        return mapped || nat64;
    }

    private static boolean isLiteralAddress(String host) {
        return host.startsWith("[") || host.chars().allMatch(c -> Character.isDigit(c) || c == '.');
    }
}
