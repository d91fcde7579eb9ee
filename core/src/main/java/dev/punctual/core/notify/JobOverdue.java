package dev.punctual.core.notify;

import static dev.punctual.core.notify.Details.putIfPresent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.core.job.Expectation;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.Webhook;
import dev.punctual.core.schedule.ScheduleSpec;
import java.time.Instant;
import java.util.Map;

/**
 * A job that did not meet its {@link Expectation}: no run of it succeeded after {@code since} and by
 * {@code deadline} (the "Punctual Job Overdue" event, schema version 1, documented in docs/events.md). {@code at}: when
 * the sweeper found it out (within about a minute of the deadline). Published by the sweeper, once per window.
 */
public record JobOverdue(
        Instant at,
        String tenant,
        String jobId,
        String jobName,
        Map<String, String> labels,
        Expectation expect,
        Instant since,
        Instant deadline,
        Webhook webhook)
        implements Notice {
    public static final String DETAIL_TYPE = "Punctual Job Overdue";
    /** The webhook state that asks for it ({@link Webhook#OUTCOMES}). */
    public static final String STATE = "OVERDUE";

    public JobOverdue {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** {@code job} overdue in the window from {@code since} to {@code deadline}, found out at {@code at}. */
    public static JobOverdue of(Job job, Instant since, Instant deadline, Instant at) {
        return new JobOverdue(
                at,
                job.owner(),
                job.id(),
                job.name(),
                job.labels(),
                job.expect(),
                since,
                deadline,
                job.webhook() != null && job.webhook().wants(STATE) ? job.webhook() : null);
    }

    @Override
    public String detailType() {
        return DETAIL_TYPE;
    }

    /** One per job and deadline. */
    @Override
    public String id() {
        return jobId + "/overdue/" + deadline;
    }

    @Override
    public String detailJson() {
        ObjectNode o = Details.start(this, tenant, jobName, labels);
        o.put("state", STATE);
        ObjectNode e = o.putObject("expect");
        if (expect.every() != null) {
            e.put("every", expect.every().toString());
        } else {
            ScheduleSpec by = expect.by();
            ObjectNode b = e.putObject("by");
            // By hand, not by reflection: the sweeper's native image registers no schedule classes.
            putIfPresent(b, "type", by.type());
            putIfPresent(b, "at", by.at());
            putIfPresent(b, "every", by.every());
            putIfPresent(b, "start", by.start());
            putIfPresent(b, "end", by.end());
            putIfPresent(b, "expression", by.expression());
            putIfPresent(b, "timezone", by.timezone());
        }
        o.put("since", since.toString());
        o.put("deadline", deadline.toString());
        return o.toString();
    }
}
