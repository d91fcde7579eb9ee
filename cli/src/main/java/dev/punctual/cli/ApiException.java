package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The API said no, or could not be reached ({@code status} 0). {@code problem}: the RFC 9457 body the API sent
 * (null if it sent none); its {@code detail} names the field at fault.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;
    final transient JsonNode problem;

    ApiException(int status, JsonNode problem, String message) {
        super(message);
        this.status = status;
        this.problem = problem;
    }

    static ApiException of(ApiClient.Answer a) {
        JsonNode problem = null;
        try {
            problem = a.body().isBlank() ? null : ApiClient.JSON.readTree(a.body());
        } catch (java.io.IOException notJson) {
            // API Gateway's own 401/429 may come as {"message": …} or plain text: shown as they are.
        }
        String message;
        if (problem != null && problem.hasNonNull("detail")) {
            message = problem.path("title").asText("HTTP " + a.status()) + ": "
                    + problem.get("detail").asText();
        } else if (problem != null && problem.hasNonNull("message")) {
            message = "HTTP " + a.status() + ": " + problem.get("message").asText();
        } else {
            message = "HTTP " + a.status()
                    + (a.body().isBlank() ? "" : ": " + a.body().strip());
        }
        return new ApiException(a.status(), problem, message);
    }
}
