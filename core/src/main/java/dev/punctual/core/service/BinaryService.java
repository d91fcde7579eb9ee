package dev.punctual.core.service;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.binary.Binary;
import dev.punctual.core.binary.BinaryRepository;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Registers binaries and hands out presigned uploads; tells whether a binary's bytes have arrived. */
public final class BinaryService {
    /** A single presigned PUT; larger binaries would need multipart upload. */
    public static final long MAX_SIZE = 1024L * 1024 * 1024;

    private final BinaryRepository binaries;
    private final ArtifactStore store;
    private final Duration uploadUrlTtl;
    private final Clock clock;

    public BinaryService(BinaryRepository binaries, ArtifactStore store, Duration uploadUrlTtl, Clock clock) {
        this.binaries = binaries;
        this.store = store;
        this.uploadUrlTtl = uploadUrlTtl;
        this.clock = clock;
    }

    public BinaryView register(String owner, BinaryRequest req) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        List<FieldError> errors = new ArrayList<>();
        if (req.name() == null || req.name().isBlank()) {
            errors.add(new FieldError("name", "is required"));
        } else if (req.name().length() > 256) {
            errors.add(new FieldError("name", "must be at most 256 characters"));
        } else if (req.name().chars().anyMatch(Character::isISOControl)) {
            // As for job names: a name is shown in listings and logs, where a newline or an escape sequence
            // could forge lines or rewrite a terminal.
            errors.add(new FieldError("name", "must not contain control characters"));
        }
        String sha = req.sha256() == null ? null : req.sha256().toLowerCase(Locale.ROOT);
        if (sha == null) {
            errors.add(new FieldError("sha256", "is required (64 hex digits, as printed by sha256sum)"));
        } else if (!sha.matches("[0-9a-f]{64}")) {
            errors.add(new FieldError("sha256", "must be 64 hex digits"));
        }
        if (req.size() == null) {
            errors.add(new FieldError("size", "is required (bytes)"));
        } else if (req.size() < 1 || req.size() > MAX_SIZE) {
            errors.add(new FieldError("size", "must be between 1 and " + MAX_SIZE + " bytes"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.INVALID, errors);
        }
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Binary b = new Binary(Ids.next("bin"), owner, req.name(), sha, req.size(), now);
        ArtifactStore.PresignedUpload up = store.presignUpload(owner, sha, req.size(), uploadUrlTtl);
        binaries.insert(b);
        return new BinaryView(
                b.id(),
                b.name(),
                b.sha256(),
                b.size(),
                now.toString(),
                null,
                up.url(),
                up.headers(),
                up.expiresAt().truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString());
    }

    public BinaryView get(String owner, String id) {
        return view(find(owner, id));
    }

    private BinaryView view(Binary b) {
        return new BinaryView(
                b.id(), b.name(), b.sha256(), b.size(), b.createdAt().toString(), uploaded(b), null, null, null);
    }

    /**
     * A page of the owner's binaries, newest first; {@code sha256} (null: any) narrows them to one content, so a
     * client can find what it uploaded before instead of registering it again. {@code uploaded} is checked as for
     * {@link #get}: S3 is asked only about a binary not yet found uploaded.
     */
    public Page<BinaryView> list(String owner, Integer limit, String cursor, String sha256) {
        String sha = sha256 == null ? null : sha256.toLowerCase(Locale.ROOT);
        if (sha != null && !sha.matches("[0-9a-f]{64}")) {
            throw new ValidationException(
                    Rejection.MALFORMED, List.of(new FieldError("sha256", "must be 64 hex digits")));
        }
        int n = Cursors.pageSize(limit);
        var key = Cursors.decode(cursor, BinaryRepository.ownerCursor(owner, id -> Ids.looksLike("bin", id)));
        var page = binaries.listByOwner(owner, sha, n, key);
        return new Page<>(page.items().stream().map(this::view).toList(), Cursors.encode(page.lastKey()));
    }

    Binary find(String owner, String id) {
        return binaries.get(id)
                .filter(b -> b.owner().equals(owner))
                .orElseThrow(() -> new NotFoundException("binary " + id + " does not exist"));
    }

    /**
     * {@link #find}, for a job that uses the binary: every job creation reads it, so the read is eventually
     * consistent, and strongly consistent only when that one misses the binary or its upload mark (registered or
     * uploaded a moment ago).
     */
    Binary findForUse(String owner, String id) {
        return binaries.get(id, false)
                .filter(b -> b.owner().equals(owner) && b.uploadedAt() != null)
                .orElseGet(() -> find(owner, id));
    }

    /**
     * Whether the owner's object is there with the registered size. Only the owner's own key counts: another
     * tenant's upload of the same bytes does not make this registration usable. Found once, it is marked on the
     * binary, and S3 is not asked again.
     */
    boolean uploaded(Binary b) {
        if (b.uploadedAt() != null) {
            return true;
        }
        boolean there = store.size(ArtifactStore.binaryKey(b.owner(), b.sha256()))
                .map(s -> s == b.size())
                .orElse(false);
        if (there) {
            binaries.markUploaded(b.id(), clock.instant());
        }
        return there;
    }
}
