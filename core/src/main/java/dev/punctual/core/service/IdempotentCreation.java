package dev.punctual.core.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.tenant.IdempotencyRepository;
import dev.punctual.core.tenant.IdempotencyRepository.Claim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Creates under an {@code Idempotency-Key}: the same key and body within {@link #KEPT} answer with the jobs the first
 * request created (as they are now), a different body is a 422, and a first request still at work a 409.
 *
 * <p>How a retry finds what the first request did: the key is claimed before anything is written, with the ids of
 * the jobs to create, and the jobs are written last of all (their runs first, {@link JobCreation}). So jobs found
 * under the claim's ids were created; none found while the claim's lease lasts means the first request is still at
 * work; none found after it means that request died part-way, and the retry takes the claim over and writes the
 * same jobs again under the same ids (their runs are overwritten in place; a message sent twice is one run, as the
 * claim of a run is exact). A request that fails (its validation, a quota, the store) gives the key back.
 */
public final class IdempotentCreation {
    /** How long a key is remembered; a client retrying later makes a new job. */
    public static final Duration KEPT = Duration.ofHours(24);

    /** How long a first request is taken to be at work: above the API's 30 s timeout. */
    public static final Duration LEASE = Duration.ofSeconds(60);

    static final int MAX_KEY_LENGTH = 255;
    static final String HEADER = "Idempotency-Key";

    /** The body's canonical form: properties and map entries sorted, absent fields left out, spacing ignored. */
    private static final ObjectMapper CANONICAL = JsonMapper.builder()
            .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private final IdempotencyRepository keys;
    private final JobRepository jobs;
    private final Clock clock;

    public IdempotentCreation(IdempotencyRepository keys, JobRepository jobs, Clock clock) {
        this.keys = keys;
        this.jobs = jobs;
        this.clock = clock;
    }

    /**
     * Runs {@code create} (which writes {@code count} jobs under the ids it is given) once for {@code key} and
     * {@code body}; a repeat answers from the jobs already created ({@code replay}).
     */
    <T> Created<T> once(
            String owner,
            String key,
            Object body,
            int count,
            Function<List<String>, T> create,
            Function<List<Job>, T> replay) {
        checkKey(key);
        String digest = digest(body);
        Instant now = clock.instant();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(Ids.next("job"));
        }
        Claim mine = new Claim(digest, ids, now.plus(LEASE), now.plus(KEPT));
        Optional<Claim> theirs = keys.claim(owner, key, mine, now);
        for (int race = 0; theirs.isPresent() && race < 3; race++) {
            Claim c = theirs.get();
            if (!c.bodySha256().equals(digest)) {
                throw new ValidationException(
                        Rejection.INVALID,
                        List.of(new FieldError(
                                HEADER,
                                "was used for a request with another body in the last " + KEPT.toHours()
                                        + " hours: use a new key for a new request")));
            }
            List<Job> created = c.jobIds().stream()
                    .map(id -> jobs.get(id))
                    .flatMap(Optional::stream)
                    .toList();
            if (created.size() == c.jobIds().size()) {
                return new Created<>(replay.apply(created), true);
            }
            if (now.isBefore(c.leaseUntil())) {
                throw new ValidationException(
                        Rejection.CONFLICT,
                        List.of(new FieldError(
                                HEADER, "a request with this key is still being processed: retry in a few seconds")));
            }
            // Its request died part-way: write its jobs again, under its ids.
            Claim taken = new Claim(digest, c.jobIds(), now.plus(LEASE), c.expiresAt());
            if (keys.takeOver(owner, key, c, taken.leaseUntil())) {
                return new Created<>(createOrGiveBack(owner, key, taken, create), false);
            }
            now = clock.instant();
            theirs = keys.get(owner, key, now);
            if (theirs.isEmpty()) {
                theirs = keys.claim(owner, key, mine, now);
            }
        }
        if (theirs.isPresent()) {
            throw new IllegalStateException("the claim of an idempotency key kept changing; try again");
        }
        return new Created<>(createOrGiveBack(owner, key, mine, create), false);
    }

    private <T> T createOrGiveBack(String owner, String key, Claim claim, Function<List<String>, T> create) {
        try {
            return create.apply(claim.jobIds());
        } catch (RuntimeException e) {
            try {
                keys.release(owner, key, claim);
            } catch (RuntimeException releaseFailed) {
                // The claim stays until its lease passes; then a retry takes it over.
                e.addSuppressed(releaseFailed);
            }
            throw e;
        }
    }

    private static void checkKey(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw new ValidationException(
                    Rejection.MALFORMED,
                    List.of(new FieldError(
                            HEADER, "must be 1 to " + MAX_KEY_LENGTH + " visible ASCII characters, e.g. a UUID")));
        }
    }

    /** The SHA-256 of the body's canonical JSON: two bodies that mean the same have the same digest. */
    public static String digest(Object body) {
        try {
            return IdempotencyRepository.sha256(CANONICAL.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the request as JSON", e);
        }
    }
}
