package dev.punctual.core.service;

import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.job.Webhook;
import dev.punctual.core.notify.WebhookTargets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The check of a job request's webhook: its target, its signing secret and the outcomes it is posted for. */
final class WebhookChecks {
    private WebhookChecks() {}

    static final int MIN_WEBHOOK_SECRET = 16;
    static final int MAX_WEBHOOK_SECRET = 256;

    /**
     * The request's webhook, checked (null: none). Its secret may be left out only where there is one to keep
     * ({@code hasSecret}: the job replaced had a webhook); its URL must be a target {@code mode} allows.
     */
    static Webhook webhook(WebhookMode mode, WebhookRequest w, boolean hasSecret, List<FieldError> errors) {
        if (w == null) {
            return null;
        }
        int before = errors.size();
        WebhookTargets.problem(w.url(), mode).ifPresent(p -> errors.add(new FieldError("webhook.url", p)));
        if (w.secret() == null && !hasSecret) {
            errors.add(new FieldError("webhook.secret", "is required: the key its posts are signed with"));
        }
        if (w.secret() != null
                && (w.secret().length() < MIN_WEBHOOK_SECRET || w.secret().length() > MAX_WEBHOOK_SECRET)) {
            errors.add(new FieldError(
                    "webhook.secret", "must be " + MIN_WEBHOOK_SECRET + " to " + MAX_WEBHOOK_SECRET + " characters"));
        }
        Set<String> on = new HashSet<>();
        List<String> names = w.on() == null ? List.of() : w.on();
        for (int i = 0; i < names.size(); i++) {
            if (Webhook.OUTCOMES.contains(names.get(i))) {
                on.add(names.get(i));
            } else {
                errors.add(new FieldError("webhook.on[" + i + "]", "must be one of " + Webhook.OUTCOMES));
            }
        }
        return errors.size() == before ? new Webhook(w.url(), on) : null;
    }
}
