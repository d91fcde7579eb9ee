package dev.punctual.core.exec;

import dev.punctual.core.metrics.Meters;
import java.lang.System.Logger.Level;

/**
 * Where an executor says what happened to each run ({@link RunEvent}): a log line at INFO, readable; or, with
 * {@code json}, a JSON object per line straight on stdout, so that CloudWatch (the ECS task's awslogs driver) gets
 * nothing else on that line to parse around.
 */
final class RunEvents {
    private static final System.Logger LOG = System.getLogger(RunEvents.class.getName());

    private final boolean json;
    private final Meters meters;

    RunEvents(boolean json, Meters meters) {
        this.json = json;
        this.meters = meters;
    }

    void emit(RunEvent event) {
        meters.transition(event.state(), event.attempt(), event.latenessMs());
        if (json) {
            System.out.println(event.line(true));
        } else {
            LOG.log(Level.INFO, event.line(false));
        }
    }
}
