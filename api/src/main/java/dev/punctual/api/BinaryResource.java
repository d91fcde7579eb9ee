package dev.punctual.api;

import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryService;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.Ids;
import dev.punctual.core.service.Page;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.URI;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestResponse;

/** Binaries: register one to get a presigned upload, then ask whether it arrived. */
@Path("/v1/binaries")
@Tag(name = "Binaries", description = "The executables jobs run")
@Produces(MediaType.APPLICATION_JSON)
public class BinaryResource {
    private final BinaryService binaries;
    private final Tenants tenants;

    BinaryResource(BinaryService binaries, Tenants tenants) {
        this.binaries = binaries;
        this.tenants = tenants;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponseSchema(
            value = BinaryView.class,
            responseCode = "201",
            responseDescription = "The binary, with its presigned upload; Location")
    @Operation(operationId = "registerBinary")
    public RestResponse<BinaryView> register(BinaryRequest request) {
        BinaryView b = binaries.register(tenants.current(), request);
        return RestResponse.ResponseBuilder.<BinaryView>created(URI.create("/v1/binaries/" + b.id()))
                .entity(b)
                .build();
    }

    /** Your binaries, newest first; {@code sha256} finds those of one content (what a client uploaded before). */
    @GET
    @Operation(operationId = "listBinaries")
    public Page<BinaryView> list(
            @RestQuery("sha256") String sha256, @RestQuery("limit") String limit, @RestQuery("cursor") String cursor) {
        return binaries.list(tenants.current(), Params.integer("limit", limit), cursor, sha256);
    }

    @GET
    @Path("{id}")
    @Operation(operationId = "getBinary")
    public BinaryView get(@RestPath String id) {
        // BinaryService would pass any id to DynamoDB, which fails on one longer than a key may be.
        if (!Ids.looksLike("bin", id)) {
            throw new NotFoundException("not a binary id");
        }
        return binaries.get(tenants.current(), id);
    }
}
