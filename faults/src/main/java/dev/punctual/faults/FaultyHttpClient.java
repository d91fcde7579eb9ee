package dev.punctual.faults;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An HTTP client for the DynamoDB SDK client that answers some calls itself, without sending them, as DynamoDB does
 * when it throttles or fails: {@code 400 ThrottlingException}, {@code 500 InternalServerError} or
 * {@code 503 ServiceUnavailable}. Nothing of such a call reaches the database, and the SDK sees a genuine error
 * response, so its own retry policy and exception classification apply exactly as against AWS.
 */
public final class FaultyHttpClient implements SdkHttpClient {
    private final SdkHttpClient delegate;
    private final DoubleSupplier rate;
    public final AtomicInteger injected = new AtomicInteger();
    public final AtomicInteger calls = new AtomicInteger();
    /** Only 500/503 (a server outage), no throttling. */
    public volatile boolean serverErrorsOnly;

    public FaultyHttpClient(SdkHttpClient delegate, DoubleSupplier rate) {
        this.delegate = delegate;
        this.rate = rate;
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        calls.incrementAndGet();
        double r = rate.getAsDouble();
        if (r <= 0 || ThreadLocalRandom.current().nextDouble() >= r) {
            return delegate.prepareRequest(request);
        }
        injected.incrementAndGet();
        int kind = serverErrorsOnly
                ? 1 + ThreadLocalRandom.current().nextInt(2)
                : ThreadLocalRandom.current().nextInt(3);
        int status = kind == 0 ? 400 : kind == 1 ? 500 : 503;
        String type = kind == 0 ? "ThrottlingException" : kind == 1 ? "InternalServerError" : "ServiceUnavailable";
        byte[] body = ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#" + type
                        + "\",\"message\":\"injected by the fault suite\"}")
                .getBytes(StandardCharsets.UTF_8);
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() {
                return HttpExecuteResponse.builder()
                        .response(SdkHttpResponse.builder()
                                .statusCode(status)
                                .putHeader("Content-Type", "application/x-amz-json-1.0")
                                .putHeader("x-amzn-ErrorType", type)
                                .putHeader("x-amzn-RequestId", "fault-" + injected.get())
                                .putHeader("Content-Length", Integer.toString(body.length))
                                .build())
                        .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body)))
                        .build();
            }

            @Override
            public void abort() {}
        };
    }

    @Override
    public String clientName() {
        return "faulty-" + delegate.clientName();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
