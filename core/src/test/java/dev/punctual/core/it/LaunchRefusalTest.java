package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The executor does not trust the job it reads back from the table: a job item changed behind the API's back
 * (here with the DynamoDB client itself) so that it carries what the API refuses is not launched; its run is DEAD
 * at once, saying what was refused.
 */
class LaunchRefusalTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    @Test
    void aJobTamperedInTheTableIsNotLaunchedAndItsRunIsDeadAtOnce() {
        Punctual p = Fixture.realTimeStack();
        Path witness = Fixture.witness(tmp);
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo ran >> \"$WITNESS\""));
        JobRequest valid = JobRequest.builder("tampered", binaryId, NOW)
                .env(Fixture.witnessEnv(witness))
                .maxAttempts(3)
                .build();
        JobView preload = p.jobService.create(OWNER, valid);
        JobView manyArgs = p.jobService.create(OWNER, valid);
        JobView untouched = p.jobService.create(OWNER, valid);

        // Behind the API's back: an LD_PRELOAD in one job's env, more arguments than allowed in another's.
        Fixture.dynamo()
                .updateItem(u -> u.tableName(p.resources.jobs().name())
                        .key(Map.of(Resources.JOB_ID, AttributeValue.fromS(preload.id())))
                        .updateExpression("SET #env.#ld = :lib")
                        .expressionAttributeNames(Map.of("#env", "env", "#ld", "LD_PRELOAD"))
                        .expressionAttributeValues(Map.of(":lib", AttributeValue.fromS("/tmp/evil.so"))));
        Fixture.dynamo()
                .updateItem(u -> u.tableName(p.resources.jobs().name())
                        .key(Map.of(Resources.JOB_ID, AttributeValue.fromS(manyArgs.id())))
                        .updateExpression("SET #args = :args")
                        .expressionAttributeNames(Map.of("#args", "args"))
                        .expressionAttributeValues(Map.of(
                                ":args", AttributeValue.fromL(Collections.nCopies(300, AttributeValue.fromS("x"))))));

        executors.start(p, "ex-1", tmp.resolve("ex-1"));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> List.of(preload, manyArgs, untouched).stream()
                        .allMatch(j -> Fixture.onlyRun(p, j.id()).state().terminal()));
        Run refused = Fixture.onlyRun(p, preload.id());
        assertThat(refused.state()).isEqualTo(RunState.DEAD);
        assertThat(refused.attempt()).as("no retry: 3 attempts were allowed").isEqualTo(1);
        assertThat(refused.exitCode()).isNull();
        assertThat(refused.error())
                .startsWith(RunWorker.REFUSED)
                .contains("env.LD_PRELOAD: is reserved (names starting with AWS_, LD_, SCHEDULER_");
        Run tooMany = Fixture.onlyRun(p, manyArgs.id());
        assertThat(tooMany.state()).isEqualTo(RunState.DEAD);
        assertThat(tooMany.attempt()).isEqualTo(1);
        assertThat(tooMany.error()).isEqualTo(RunWorker.REFUSED + "args: 300 items, more than 256");
        // The dead letters are listed like any other.
        await().atMost(Duration.ofSeconds(5))
                .until(() ->
                        p.deadLetters.list(OWNER, "DEAD", null, null).items().size() == 2);

        assertThat(Fixture.onlyRun(p, untouched.id()).state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(Fixture.lines(witness)).as("only the untouched job ran").containsExactly("ran");
        await().atMost(Duration.ofSeconds(5)).until(() -> Fixture.queueCounts(p).total() == 0);
    }
}
