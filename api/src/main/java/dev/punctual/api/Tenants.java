package dev.punctual.api;

import dev.punctual.api.auth.UnauthenticatedException;

/**
 * Who is calling: the owner every job, run and binary is scoped to. Each deployable provides the one bean that
 * decides it (API Gateway's authorizer in the Lambda, a verified token or the single tenant in the local runner);
 * no default exists, so a deployable that forgets cannot silently serve everyone as one tenant.
 */
public interface Tenants {
    /** The one tenant of an API run without authentication (local runner, or {@code auth-mode=none}). */
    String LOCAL = "local";

    /**
     * The calling tenant.
     *
     * @throws UnauthenticatedException (401) when the request carries no identity this deployable accepts
     */
    String current();
}
