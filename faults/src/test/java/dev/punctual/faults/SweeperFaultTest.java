package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.run.RunState;
import dev.punctual.core.time.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/** The sweeper doubled, switched off for minutes, or crashing halfway through a bucket. */
@Order(4)
class SweeperFaultTest extends FaultScenarios {
    // ---- 6. two sweepers at once -------------------------------------------------------------------------------

    @Test
    @Order(1)
    void twoSweepersAtOnce() throws Exception {
        scenario("6. two sweepers at once", s -> {
            s.startExecutors(3);
            var d2 = AwsClients.dynamo(s.target);
            var q2 = AwsClients.sqs(s.target);
            Punctual other = s.punctual(d2, q2, Clock.systemUTC());
            // Interval jobs: every occurrence after the first is queued (and the next one written) by a sweep.
            Instant start = Instant.now().plusSeconds(7).truncatedTo(ChronoUnit.SECONDS);
            Duration every = Duration.ofSeconds(5);
            int perJob = 4;
            int jobs = Math.max(1, RUNS / perJob);
            s.submitWorkers(
                    s.api,
                    jobs,
                    0.1,
                    0.6,
                    () -> Stage.interval(every, start, start.plus(every.multipliedBy(perJob - 1))));
            Sweeping a = s.startSweeper(s.api, "sweeper-a");
            Sweeping b = s.startSweeper(other, "sweeper-b");
            Checker.Result r = s.drainAndCheck(DRAIN.plus(every.multipliedBy(perJob)));
            d2.close();
            q2.close();
            s.notes.add(jobs + " interval jobs x " + perJob + "; sweeps " + a.sweeps.get() + " + " + b.sweeps.get());
            assertThat(a.sweeps.get()).isPositive();
            assertThat(b.sweeps.get()).isPositive();
            assertThat(r.duplicates())
                    .as("racing sweepers send a run twice at most; only one claim wins")
                    .isZero();
        });
    }

    // ---- 7. sweeper off for 10 minutes -------------------------------------------------------------------------

    @Test
    @Order(2)
    void sweeperOffForTenMinutes() throws Exception {
        scenario("7. sweeper off for 10 (simulated) min", s -> {
            Instant real = Instant.now();
            Duration outage = Duration.ofMinutes(10);
            SettableClock clock = new SettableClock(real.minus(outage).minusSeconds(30));
            // The API as it was during the outage, on a clock that starts 10.5 minutes ago; its last sweep
            // before the outage persists the watermark there.
            Punctual past = s.punctual(s.dynamo, s.sqs, clock);
            past.sweeper.sweep();
            s.startExecutors(3);
            int intervalJobs = 2;
            int perMinute = Math.max(1, (RUNS - intervalJobs * 10) / 10);
            for (int m = 0; m < 10; m++) {
                clock.set(real.minus(outage).plus(Duration.ofMinutes(m)));
                Instant at = clock.instant().plusSeconds(30);
                s.submitWorkers(past, perMinute, 0.1, 0.4, () -> Stage.once(at));
                if (m == 0) {
                    Instant first = at.truncatedTo(ChronoUnit.SECONDS);
                    s.submitWorkers(
                            past,
                            intervalJobs,
                            0.1,
                            0.2,
                            () -> Stage.interval(Duration.ofMinutes(1), first, first.plus(Duration.ofMinutes(9))));
                }
            }
            int accepted = s.expected.values().stream()
                    .mapToInt(Stage.Expect::occurrences)
                    .sum();
            assertThat(s.witness.starts())
                    .as("nothing ran during the outage: nobody sent a message")
                    .isZero();
            assertThat(s.allRuns()).allMatch(r -> r.state() == RunState.SCHEDULED);
            Sweeping sw = s.startSweeper(s.api, "sweeper");
            Checker.Result r = s.drainAndCheck(DRAIN);
            s.notes.add(accepted + " runs came due during a " + outage.toMinutes()
                    + "-minute sweeper outage (jobs created on a clock set back); caught up by "
                    + sw.sweeps.get() + " sweeps");
            assertThat(r.duplicates()).isZero();
        });
    }

    // ---- 8. sweeper crash mid-bucket ---------------------------------------------------------------------------

    /** What a process dying mid-call looks like to the code above it: nothing catches it, nothing runs after. */
    static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("injected: the sweeper's process died");
        }
    }

    /** Crashes the sweeper at its Nth DynamoDB transaction, before the transaction is sent. */
    static final class CrashAtTransaction implements ExecutionInterceptor {
        private final int nth;
        private final AtomicInteger transactions = new AtomicInteger();

        CrashAtTransaction(int nth) {
            this.nth = nth;
        }

        @Override
        public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
            if (c.request() instanceof TransactWriteItemsRequest && transactions.incrementAndGet() == nth) {
                throw new SimulatedCrash();
            }
        }
    }

    @Test
    @Order(3)
    void sweeperCrashMidBucket() throws Exception {
        scenario("8. sweeper crash mid-bucket", s -> {
            s.startExecutors(3);
            DynamoDbClient crashing =
                    FaultClients.dynamo(s.target, UrlConnectionHttpClient.create(), List.of(new CrashAtTransaction(3)));
            Punctual doomed = s.punctual(crashing, s.sqs, Clock.systemUTC());
            Instant at = Instant.now().plusSeconds(9);
            s.submitWorkers(s.api, RUNS, 0.1, 0.5, () -> Stage.once(at));
            assertThat(s.allRuns()).allMatch(r -> r.state() == RunState.SCHEDULED);
            // Once the runs are inside the sweep horizon, one sweep finds them all and dies while marking.
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> Instant.now()
                            .isAfter(at.minus(s.settings.sweep().lookahead()).plusMillis(300)));
            Throwable crash = catchThrowable(doomed.sweeper::sweep);
            assertThat(crash).as("the sweep crashed").isNotNull();
            assertThat(crash instanceof SimulatedCrash || crash.getCause() instanceof SimulatedCrash)
                    .as("crashed by the injection: %s", crash)
                    .isTrue();
            long queued = s.allRuns().stream()
                    .filter(r -> r.state() != RunState.SCHEDULED)
                    .count();
            crashing.close();
            Sweeping sw = s.startSweeper(s.api, "sweeper");
            Checker.Result r = s.drainAndCheck(DRAIN);
            s.notes.add("crashed sweep sent a batch and marked " + queued + " of " + RUNS
                    + "; a healthy sweeper redid the bucket");
            assertThat(queued).as("the crash left the bucket half done").isLessThan(RUNS);
            assertThat(r.duplicates()).isZero();
        });
    }
}
