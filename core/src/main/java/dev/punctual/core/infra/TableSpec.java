package dev.punctual.core.infra;

import java.util.List;

/**
 * One DynamoDB table as the code uses it. The emulators, {@link Provisioner} and the Terraform contract tests all
 * read these, so a name or key cannot differ between code and infrastructure.
 */
public record TableSpec(String name, String hashKey, String rangeKey, List<IndexSpec> indexes, String ttlAttribute) {

    /**
     * A global secondary index; all its keys are strings. {@code keysOnly}: it projects only the keys (the
     * table's and its own), so writes that change no key of it cost it nothing; readers fetch the items by key.
     * Otherwise it projects every attribute.
     */
    public record IndexSpec(String name, String hashKey, String rangeKey, boolean keysOnly) {
        public String projection() {
            return keysOnly ? "KEYS_ONLY" : "ALL";
        }
    }
}
