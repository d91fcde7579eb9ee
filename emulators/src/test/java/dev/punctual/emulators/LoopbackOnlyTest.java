package dev.punctual.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The emulators have no real authentication, so they listen on the loopback address only: from another address
 * of this machine (and so from the network) their ports are closed.
 */
class LoopbackOnlyTest {
    private static final int CONNECT_TIMEOUT_MS = 2000;

    @Test
    void everyEmulatorAnswersOnLoopbackAndIsClosedOnEveryOtherAddressOfThisMachine() throws Exception {
        EmbeddedAws aws = EmbeddedAws.shared();
        Map<String, URI> endpoints = Map.of(
                "DynamoDB Local", aws.dynamodbEndpoint(), "ElasticMQ", aws.sqsEndpoint(), "S3Proxy", aws.s3Endpoint());
        List<InetAddress> others = nonLoopbackAddresses();
        assumeFalse(others.isEmpty(), "this machine has no non-loopback address to try the ports on");

        for (var e : endpoints.entrySet()) {
            int port = e.getValue().getPort();
            assertThat(e.getValue().getHost()).isEqualTo(EmbeddedAws.LOOPBACK);
            assertThat(reachable(InetAddress.getByName(EmbeddedAws.LOOPBACK), port))
                    .as("%s on loopback", e.getKey())
                    .isTrue();
            for (InetAddress other : others) {
                assertThat(reachable(other, port))
                        .as("%s reachable on %s port %d", e.getKey(), other.getHostAddress(), port)
                        .isFalse();
            }
        }
    }

    /** Whether a TCP connection to the address and port is accepted (refused or timed out: not reachable). */
    private static boolean reachable(InetAddress address, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), CONNECT_TIMEOUT_MS);
            return true;
        } catch (ConnectException | SocketTimeoutException closed) {
            return false;
        }
    }

    /** The addresses of this machine's interfaces that are up, other than loopback ones. */
    private static List<InetAddress> nonLoopbackAddresses() throws SocketException {
        return NetworkInterface.networkInterfaces()
                .filter(LoopbackOnlyTest::up)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isAnyLocalAddress())
                .filter(LoopbackOnlyTest::bindable)
                .toList();
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp() && !i.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Whether this process can use the address at all (e.g. an IPv6 address while IPv6 is disabled): one it cannot
     * bind to proves nothing about the emulators.
     */
    private static boolean bindable(InetAddress a) {
        try (var s = new ServerSocket(0, 1, a)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
