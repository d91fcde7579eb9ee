package dev.punctual.api;

/**
 * Who is calling: the owner every job and binary is scoped to. Without authentication everything belongs to
 * {@value #LOCAL}. A deployable with an authorizer provides its own bean (e.g. from the JWT's subject).
 */
public interface Tenants {
    String LOCAL = "local";

    String current();
}
