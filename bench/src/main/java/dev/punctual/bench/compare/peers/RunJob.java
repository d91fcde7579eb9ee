package dev.punctual.bench.compare.peers;

import java.io.IOException;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/** Quartz's one job: runs the binary its job data names; a non-zero exit fails the execution. */
public final class RunJob implements Job {
    /** Quartz instantiates the job class by name, with no arguments, for every execution. */
    public RunJob() {}

    @Override
    public void execute(JobExecutionContext context) throws JobExecutionException {
        RunCommand command =
                RunCommand.fromJobData(context.getMergedJobDataMap().getWrappedMap());
        try {
            command.runOrFail();
        } catch (IOException | RunCommand.Failed e) {
            throw new JobExecutionException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JobExecutionException(e);
        }
    }
}
