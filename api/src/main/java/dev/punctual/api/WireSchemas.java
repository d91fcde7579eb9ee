package dev.punctual.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BackfillRequest;
import dev.punctual.core.service.BackfillView;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.ExpectSpec;
import dev.punctual.core.service.JobBatch;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.PauseRequest;
import dev.punctual.core.service.PreviewOccurrence;
import dev.punctual.core.service.PreviewRequest;
import dev.punctual.core.service.ResumeRequest;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.SchedulePreview;
import dev.punctual.core.service.TriggerRequest;
import dev.punctual.core.service.WebhookRequest;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

/**
 * What the generator cannot read from the Java types of the bodies: which fields of an answer are always there and
 * which may be {@code null}, which fields a request must have, and the short forms a request may use. Applied to the
 * document at build time by {@link ApiDocument}.
 *
 * <p>Presence follows from how Jackson writes a record: every component, {@code null} or not, unless the record is
 * {@code @JsonInclude(NON_NULL)}, when a {@code null} one is left out. So a record of the first kind ({@link
 * #whole}) has every property required and says which may be {@code null} (read from the code that builds it); one
 * of the second kind ({@link #sparse}) names the properties that are never {@code null} (required) and has none that
 * is nullable. Both are checked against the record's components here, so a renamed or added component fails the
 * build instead of leaving the document behind. Requests ({@link #request}) name what the service refuses to do
 * without (its "is required" errors).
 *
 * <p>Two records are read in one shape and shown in another: a job's {@code catchUp} and {@code limits} come back with
 * every field (catch-up's defaults filled in, a limit not set as {@code null}), while a request may leave any out.
 * Their answers' shapes are schemas of their own, {@value #CATCH_UP_VIEW} and {@value #LIMITS_VIEW}.
 */
final class WireSchemas {
    static final String CATCH_UP_VIEW = "CatchUpView";
    static final String LIMITS_VIEW = "RunLimitsView";
    private static final String SCHEMAS = "#/components/schemas/";

    /** One component schema: its record, the properties it requires and those that may be null. */
    record Shape(String schema, Class<? extends Record> type, List<String> required, Set<String> nullable) {}

    static final List<Shape> SHAPES = List.of(
            // Answers.
            whole(
                    "JobView",
                    JobView.class,
                    // Only in the answer to a dry run of a creation (POST /v1/jobs?dryRun=true): nothing was made.
                    "id",
                    "nextRunAt",
                    "pausedAt",
                    "jitter",
                    "limits",
                    "pauseNote",
                    "webhook",
                    "expect"),
            whole("WebhookView", JobView.WebhookView.class),
            whole(
                    "RunView",
                    RunView.class,
                    "jobName",
                    "exitCode",
                    "createdAt",
                    "queuedAt",
                    "launchedAt",
                    "lateness",
                    "startedAt",
                    "finishedAt",
                    "executorId",
                    "error",
                    "args",
                    "env",
                    "priority",
                    "waiting"),
            whole(
                    "AttemptView",
                    RunView.AttemptView.class,
                    "startedAt",
                    "finishedAt",
                    "exitCode",
                    "error",
                    "executorId"),
            whole("PageJobView", Page.class, "nextCursor"),
            whole("PageRunView", Page.class, "nextCursor"),
            whole("PageBinaryView", Page.class, "nextCursor"),
            whole("JobBatch", JobBatch.class),
            whole("BackfillView", BackfillView.class),
            whole("SchedulePreview", SchedulePreview.class, "timezone"),
            whole("PreviewOccurrence", PreviewOccurrence.class, "dst"),
            whole("FieldError", FieldError.class),
            whole(
                    LIMITS_VIEW,
                    RunLimits.class,
                    "processes",
                    "memoryMb",
                    "openFiles",
                    "fileSizeMb",
                    "cpuSeconds",
                    "diskMb"),
            // On a read: uploaded; on the registration: uploadUrl, uploadHeaders, expiresAt.
            sparse("BinaryView", BinaryView.class, "id", "name", "sha256", "size", "createdAt"),
            sparse("Problem", Problem.class, "type", "title", "status", "detail"),
            sparse(CATCH_UP_VIEW, CatchUpSpec.class, "mode", "maxAge", "maxRuns"),
            // Read and shown alike.
            sparse("ScheduleSpec", ScheduleSpec.class, "type"),
            sparse("DateSpec", DateSpec.class),
            sparse("JitterSpec", JitterSpec.class, "mode", "max"),
            sparse("ExpectSpec", ExpectSpec.class),
            // Requests.
            request("JobRequest", JobRequest.class, "name", "binaryId", "schedule"),
            request("JobBatchRequest", JobBatch.Request.class, "jobs"),
            // The secret too when the job has none yet (JobValidator): a PUT may leave it out to keep it.
            request("WebhookRequest", WebhookRequest.class, "url"),
            request("CatchUpSpec", CatchUpSpec.class),
            request("RunLimits", RunLimits.class),
            request("BinaryRequest", BinaryRequest.class, "name", "sha256", "size"),
            request("BackfillRequest", BackfillRequest.class, "from", "to"),
            request("PreviewRequest", PreviewRequest.class, "schedule"),
            request("TriggerRequest", TriggerRequest.class),
            request("PauseRequest", PauseRequest.class),
            request("ResumeRequest", ResumeRequest.class));

    /** Schemas that are no record's: the enumeration of problem types. */
    private static final Set<String> NOT_RECORDS = Set.of("ProblemType");

    private WireSchemas() {}

    static void apply(OpenAPI api) {
        api.getComponents()
                .addSchema(
                        CATCH_UP_VIEW,
                        copyOfScalars(
                                api.getComponents().getSchemas().get("CatchUpSpec"),
                                "A job's catch-up, defaults filled in"))
                .addSchema(
                        LIMITS_VIEW,
                        copyOfScalars(
                                api.getComponents().getSchemas().get("RunLimits"),
                                "The limits a job named; null: the maximum"));
        Map<String, Schema> schemas = api.getComponents().getSchemas();
        Schema job = schemas.get("JobView");
        job.addProperty("catchUp", ref(CATCH_UP_VIEW));
        job.addProperty("limits", ref(LIMITS_VIEW));

        Set<String> shaped = new TreeSet<>();
        for (Shape s : SHAPES) {
            Schema schema = schemas.get(s.schema());
            if (schema == null) {
                throw new IllegalStateException("no schema " + s.schema() + " in the document: update WireSchemas");
            }
            Set<String> properties = new TreeSet<>(schema.getProperties().keySet());
            Set<String> components = new TreeSet<>(components(s.type()));
            if (!properties.equals(components)) {
                throw new IllegalStateException(
                        s.schema() + " has properties " + properties + " but " + s.type() + " has " + components);
            }
            schema.setRequired(s.required().isEmpty() ? null : s.required());
            for (String name : s.nullable()) {
                schema.addProperty(name, nullable(schema.getProperties().get(name)));
            }
            shaped.add(s.schema());
        }
        Set<String> unshaped = new TreeSet<>(schemas.keySet());
        unshaped.removeAll(shaped);
        unshaped.removeAll(NOT_RECORDS);
        if (!unshaped.isEmpty()) {
            throw new IllegalStateException("say in WireSchemas what is present in " + unshaped);
        }
        shortForms(schemas);
        // Exactly one of every and by (ExpectSpec): NON_NULL writes only the one set, and a request with both is a 422.
        schemas.get("ExpectSpec").minProperties(1).maxProperties(1);
    }

    /**
     * What a request may write more briefly than the record reads it: a catch-up as just its mode, and a dates entry
     * as just an instant (Jackson's delegating creators of {@link CatchUpSpec} and {@link DateSpec}).
     */
    private static void shortForms(Map<String, Schema> schemas) {
        List<Object> modes = new ArrayList<>();
        Arrays.stream(CatchUp.Mode.values()).forEach(m -> modes.add(m.wire()));
        Schema mode = OASFactory.createSchema()
                .addType(SchemaType.STRING)
                .enumeration(modes)
                .description("just the mode, the rest as the job's default");
        schemas.get("JobRequest")
                .addProperty("catchUp", OASFactory.createSchema().oneOf(List.of(mode, ref("CatchUpSpec"))));
        Schema resume = schemas.get("ResumeRequest");
        resume.addProperty(
                "catchUp",
                OASFactory.createSchema()
                        .addType(SchemaType.STRING)
                        .enumeration(modes)
                        .description("the catch-up mode for the occurrences missed while paused (default: the job's)"));
        Schema instant = OASFactory.createSchema()
                .addType(SchemaType.STRING)
                .description("an instant with an offset, the same as {\"instant\": ...}");
        schemas.get("ScheduleSpec")
                .getProperties()
                .get("dates")
                .setItems(OASFactory.createSchema().oneOf(List.of(instant, ref("DateSpec"))));
    }

    /** Every property required; those named may be null. Jackson writes every component of such a record. */
    private static Shape whole(String schema, Class<? extends Record> type, String... nullable) {
        if (nonNull(type)) {
            throw new IllegalStateException(type + " leaves nulls out: declare " + schema + " as sparse");
        }
        return shape(schema, type, components(type), Set.of(nullable));
    }

    /** The properties named are always there (never null); the others are left out when null. */
    private static Shape sparse(String schema, Class<? extends Record> type, String... present) {
        if (!nonNull(type)) {
            throw new IllegalStateException(type + " writes its nulls: declare " + schema + " as whole");
        }
        return shape(schema, type, List.of(present), Set.of());
    }

    /** A request body: the properties the service answers "is required" without. */
    private static Shape request(String schema, Class<? extends Record> type, String... required) {
        return shape(schema, type, List.of(required), Set.of());
    }

    private static Shape shape(
            String schema, Class<? extends Record> type, List<String> required, Set<String> nullable) {
        List<String> components = components(type);
        Set<String> named = new LinkedHashSet<>(required);
        named.addAll(nullable);
        named.removeAll(components);
        if (!named.isEmpty()) {
            throw new IllegalStateException(type + " has no component " + named);
        }
        for (RecordComponent c : type.getRecordComponents()) {
            if (c.getType().isPrimitive() && nullable.contains(c.getName())) {
                throw new IllegalStateException(type + "." + c.getName() + " is primitive: it cannot be null");
            }
        }
        return new Shape(schema, type, List.copyOf(required), Set.copyOf(nullable));
    }

    private static List<String> components(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents())
                .map(RecordComponent::getName)
                .toList();
    }

    private static boolean nonNull(Class<?> type) {
        JsonInclude include = type.getAnnotation(JsonInclude.class);
        return include != null && include.value() == JsonInclude.Include.NON_NULL;
    }

    /** The schema, or null: a type list gains "null", a reference is wrapped in a oneOf with {type: null}. */
    static Schema nullable(Schema s) {
        if (s.getRef() != null) {
            return OASFactory.createSchema()
                    .oneOf(List.of(ref(s.getRef()), OASFactory.createSchema().addType(SchemaType.NULL)));
        }
        if (s.getType() == null || s.getType().isEmpty()) {
            throw new IllegalStateException("a schema without a type or a reference cannot be made nullable: " + s);
        }
        if (!s.getType().contains(SchemaType.NULL)) {
            s.addType(SchemaType.NULL);
        }
        return s;
    }

    private static Schema ref(String nameOrRef) {
        return OASFactory.createSchema().ref(nameOrRef.startsWith("#") ? nameOrRef : SCHEMAS + nameOrRef);
    }

    /** A new object schema with copies of {@code source}'s properties, each a plain scalar. */
    private static Schema copyOfScalars(Schema source, String description) {
        Schema copy = OASFactory.createSchema().addType(SchemaType.OBJECT).description(description);
        Map<String, Schema> properties = new LinkedHashMap<>();
        source.getProperties().forEach((name, p) -> {
            if (p.getRef() != null || p.getProperties() != null || p.getItems() != null) {
                throw new IllegalStateException("only scalar properties are copied, not " + name + ": " + p);
            }
            Schema c = OASFactory.createSchema().type(new ArrayList<>(p.getType()));
            c.setFormat(p.getFormat());
            c.setDescription(p.getDescription());
            properties.put(name, c);
        });
        copy.setProperties(properties);
        return copy;
    }
}
