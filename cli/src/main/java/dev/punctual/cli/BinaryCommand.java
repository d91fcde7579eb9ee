package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code punctual binary push|get}. */
@Command(
        name = "binary",
        mixinStandardHelpOptions = true,
        description = "Upload a compiled binary, or look one up.",
        subcommands = {BinaryCommand.Push.class, BinaryCommand.ListBinaries.class, BinaryCommand.Get.class})
final class BinaryCommand {
    private static final List<String> FIELDS = List.of("id", "name", "sha256", "size", "createdAt", "uploaded");

    static void print(Cli cli, JsonNode b) {
        cli.print(b, out -> Table.describe(out, b, FIELDS.toArray(String[]::new)));
    }

    @Command(
            name = "push",
            mixinStandardHelpOptions = true,
            description = {
                "Registers FILE (its sha256 and size) and uploads it through the presigned URL the API answers with.",
                "Idempotent by content: a binary of yours with these bytes and this name is reused as it is; with"
                        + " another name, the bytes are not uploaded again."
            })
    static final class Push extends CliCommand {
        @Parameters(paramLabel = "FILE", description = "The executable to upload.")
        Path file;

        @Option(names = "--name", description = "Its name (default: the file's name).")
        String name;

        @Option(
                names = "--progress",
                negatable = true,
                description = "Show a progress bar on stderr (default: when stderr is a terminal).")
        Boolean progress;

        Push(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            if (!Files.isRegularFile(file)) {
                throw new Cli.UsageException(file + " is not a file");
            }
            long size;
            String sha;
            try {
                size = Files.size(file);
                sha = sha256(file);
            } catch (IOException e) {
                throw new Cli.UsageException("cannot read " + file + ": " + e.getMessage());
            }
            String as = name != null ? name : file.getFileName().toString();
            // The account's own object is keyed by content: once any registration of these bytes is uploaded,
            // every other one is too.
            boolean bytesThere = false;
            for (JsonNode b :
                    ApiClient.all(cli.api(), ApiClient.query("/v1/binaries", ApiClient.params("sha256", sha)))) {
                if (b.path("uploaded").asBoolean(false) && b.path("size").asLong() == size) {
                    if (as.equals(b.path("name").asText())) {
                        cli.err.println("already uploaded as " + b.get("id").asText());
                        print(cli, b);
                        return;
                    }
                    bytesThere = true;
                }
            }
            JsonNode registered = cli.api().post("/v1/binaries", Map.of("name", as, "sha256", sha, "size", size));
            if (bytesThere) {
                cli.err.println("already uploaded: " + sha);
            } else {
                upload(registered, size);
            }
            print(
                    cli,
                    cli.api()
                            .get("/v1/binaries/"
                                    + ApiClient.segment(registered.get("id").asText())));
        }

        private void upload(JsonNode registered, long size) {
            boolean show = progress != null ? progress : System.console() != null;
            HttpRequest.Builder put = HttpRequest.newBuilder(
                            URI.create(registered.get("uploadUrl").asText()))
                    .PUT(HttpRequest.BodyPublishers.fromPublisher(
                            HttpRequest.BodyPublishers.ofInputStream(() -> open(size, show)), size));
            // The HTTP client sets Host and Content-Length itself and refuses them as headers.
            Set<String> restricted = Set.of("content-length", "host");
            registered.path("uploadHeaders").properties().forEach(h -> {
                if (!restricted.contains(h.getKey().toLowerCase(java.util.Locale.ROOT))) {
                    put.header(h.getKey(), h.getValue().asText());
                }
            });
            int status = cli.api().sendRaw(put.build());
            if (show) {
                cli.err.println();
            }
            if (status / 100 != 2) {
                throw new ApiException(status, null, "the upload was refused with HTTP " + status);
            }
        }

        private InputStream open(long size, boolean show) {
            try {
                InputStream in = Files.newInputStream(file);
                return show ? new Progress(in, size, cli) : in;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Your binaries, newest first.")
    static final class ListBinaries extends CliCommand {
        @Option(names = "--sha256", paramLabel = "HEX", description = "Only those of this content.")
        String sha256;

        ListBinaries(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            List<JsonNode> all = ApiClient.all(
                    cli.api(), ApiClient.query("/v1/binaries", ApiClient.params("sha256", sha256, "limit", 100)));
            cli.print(
                    all,
                    out -> new Table()
                            .field("ID", "id")
                            .field("NAME", "name")
                            .column("SHA256", b -> b.path("sha256").asText().substring(0, 12))
                            .field("SIZE", "size")
                            .field("CREATED", "createdAt")
                            .field("UPLOADED", "uploaded")
                            .print(out, all));
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One binary, and whether it is uploaded.")
    static final class Get extends CliCommand {
        @Parameters(paramLabel = "ID")
        String id;

        Get(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            print(cli, cli.api().get("/v1/binaries/" + ApiClient.segment(id)));
        }
    }

    static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Draws {@code [#####     ]  42%} on stderr as the upload reads the file. */
    private static final class Progress extends FilterInputStream {
        private final long size;
        private final Cli cli;
        private long read;
        private int shown = -1;

        Progress(InputStream in, long size, Cli cli) {
            super(in);
            this.size = size;
            this.cli = cli;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                advance(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                advance(n);
            }
            return n;
        }

        private void advance(int n) {
            read += n;
            int pct = (int) (100 * read / Math.max(1, size));
            if (pct != shown) {
                shown = pct;
                int bar = pct / 4;
                cli.err.print("\r[" + "#".repeat(bar) + " ".repeat(25 - bar) + "] " + pct + "%");
                cli.err.flush();
            }
        }
    }
}
