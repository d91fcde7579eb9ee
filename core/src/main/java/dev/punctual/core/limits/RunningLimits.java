package dev.punctual.core.limits;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many runs of one tenant may be RUNNING at once: {@code perTenant} for every tenant (0: no limit), and
 * {@code tenants}, an owner's own limit over it (0: none for that owner). A run over its tenant's limit waits, its
 * message looked at again shortly; it is not claimed, so it uses no attempt.
 */
public record RunningLimits(int perTenant, Map<String, Integer> tenants) {
    /**
     * The most a limit may be: each running run holds one of its tenant's slot items, and a claim that finds its
     * tenant near full reads them all in one call (BatchGetItem takes 100 keys).
     */
    public static final int MAX = 100;

    public static final RunningLimits NONE = new RunningLimits(0, Map.of());

    public RunningLimits {
        tenants = tenants == null ? Map.of() : Map.copyOf(tenants);
        check(perTenant, "the per-tenant running limit");
        tenants.forEach((owner, n) -> check(n, "the running limit of " + owner));
    }

    private static void check(int n, String what) {
        if (n < 0 || n > MAX) {
            throw new IllegalArgumentException(what + " must be between 0 (none) and " + MAX + ", not " + n);
        }
    }

    /** The limit of {@code owner}'s running runs; 0 for none. */
    public int limitFor(String owner) {
        return tenants.getOrDefault(owner, perTenant);
    }

    /** Whether any tenant has a limit. */
    public boolean any() {
        return perTenant > 0 || tenants.values().stream().anyMatch(n -> n > 0);
    }

    /**
     * Owners' own limits as configured: {@code owner=N} entries separated by {@code ;} (an owner may contain
     * {@code =}: the last one separates the number). Empty or null: none.
     *
     * @throws IllegalArgumentException naming the entry that is not one
     */
    public static Map<String, Integer> parseTenants(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String entry : text.split(";")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.lastIndexOf('=');
            if (eq <= 0 || eq == e.length() - 1) {
                throw new IllegalArgumentException("'" + e + "' is not owner=N");
            }
            try {
                out.put(
                        e.substring(0, eq).strip(),
                        Integer.parseInt(e.substring(eq + 1).strip()));
            } catch (NumberFormatException nfe) {
                throw new IllegalArgumentException("'" + e + "' is not owner=N: N must be a whole number", nfe);
            }
        }
        return out;
    }
}
