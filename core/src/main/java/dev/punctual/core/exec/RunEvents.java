package dev.punctual.core.exec;

import dev.punctual.core.job.Job;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotice;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.run.Change;
import java.lang.System.Logger.Level;

/**
 * Where an executor says what happened to each run ({@link RunEvent}): a log line at INFO, readable; or, with
 * {@code json}, a JSON object per line straight on stdout, so that CloudWatch (the ECS task's awslogs driver) gets
 * nothing else on that line to parse around. Outcomes are also published ({@link RunNotices}).
 */
public final class RunEvents {
    private static final System.Logger LOG = System.getLogger(RunEvents.class.getName());

    private final boolean json;
    private final RunNotices notices;
    private final Meters meters;

    public RunEvents(boolean json, RunNotices notices, Meters meters) {
        this.json = json;
        this.notices = notices;
        this.meters = meters;
    }

    void emit(RunEvent event) {
        meters.transition(event.state(), event.attempt(), event.latenessMs(), event.lane());
        if (json) {
            System.out.println(event.line(true));
        } else {
            LOG.log(Level.INFO, event.line(false));
        }
    }

    /** {@code change}, which {@code executorId} has won: logged, and published if it is an outcome. */
    void emit(Change change, Job job, String executorId) {
        emit(RunEvent.of(change, executorId));
        RunNotice.of(change, job, executorId).ifPresent(notices::publish);
    }
}
