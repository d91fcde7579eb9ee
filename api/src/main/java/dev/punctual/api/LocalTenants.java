package dev.punctual.api;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;

/** The unauthenticated default: one tenant, "local". */
@DefaultBean
@ApplicationScoped
public class LocalTenants implements Tenants {
    @Override
    public String current() {
        return LOCAL;
    }
}
