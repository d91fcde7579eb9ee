package dev.punctual.sweeper;

import dev.punctual.core.sweep.Sweeper;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The sweep's report as the Lambda returns it (and CloudWatch logs it). */
@RegisterForReflection
public record SweepResult(
        String from,
        String horizon,
        int buckets,
        int due,
        int sent,
        int marked,
        int materialized,
        int failed,
        int resent,
        String watermark) {
    static SweepResult of(Sweeper.SweepReport r) {
        return new SweepResult(
                r.from().toString(),
                r.horizon().toString(),
                r.buckets(),
                r.due(),
                r.sent(),
                r.marked(),
                r.materialized(),
                r.failed(),
                r.resent(),
                r.watermark().toString());
    }
}
