package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.queue.RunMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/** The queue misbehaving: the same message delivered again and again, sends that fail before or after SQS has them. */
@Order(3)
class DeliveryFaultTest extends FaultScenarios {
    /** How often the rogue of scenario 5 lets a message be received before it stops: about half maxReceiveCount. */
    private static final int ROGUE_RECEIVES = 12;

    // ---- 5. the same message twice, visibility 0 ---------------------------------------------------------------

    @Test
    @Order(1)
    void theSameMessageDeliveredTwiceAndVisibilitySetToZero() throws Exception {
        scenario("5. duplicate delivery, visibility 0", s -> {
            s.startSweeperAndExecutors(3);
            // A rogue consumer: receives whatever is visible and hands it straight back (visibility 0), so the
            // same message is delivered again at once. Every receive counts towards the queue's maxReceiveCount
            // (25), its own as much as an executor's: a rogue let loose on messages that wait behind a backlog
            // dead-letters them, and the sweeper then ends their runs DEAD, saying so (DeadLetterTest; that is a
            // scenario of its own, docs/gotchas.md). On a machine slow to start processes it did (a run DEAD after
            // 25 receives in 17 s, at attempt 0). So it stops once a message it received has been received
            // ROGUE_RECEIVES times: each message keeps at least 25 - ROGUE_RECEIVES receives for the executors.
            AtomicBoolean rogue = new AtomicBoolean(true);
            AtomicInteger released = new AtomicInteger();
            AtomicInteger mostReceives = new AtomicInteger();
            Thread rogueThread = Thread.ofPlatform().daemon().start(() -> {
                while (rogue.get() && mostReceives.get() < ROGUE_RECEIVES) {
                    try {
                        for (var m : s.api.queue.receive(10, 1, 30)) {
                            s.api.queue.changeVisibility(m.receiptHandle(), 0);
                            released.incrementAndGet();
                            mostReceives.accumulateAndGet(
                                    Integer.parseInt(m.attributes()
                                            .getOrDefault(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, "1")),
                                    Math::max);
                        }
                    } catch (RuntimeException e) {
                        // a receipt handle that went stale is normal here
                    }
                }
            });
            s.submitWorkers(s.api, RUNS, 0.2, 0.8, Stage::now);
            // ... and every run's message a second time.
            List<RunMessage> copies = s.allRuns().stream()
                    .map(r -> new RunMessage(r.jobId(), r.runId(), r.scheduledAt()))
                    .toList();
            int sent = 0;
            for (int i = 0; i < copies.size(); i += 10) {
                sent += s.api.queue
                        .sendBatch(copies.subList(i, Math.min(copies.size(), i + 10)), Instant.now())
                        .size();
            }
            s.awaitStarts(RUNS / 2, Duration.ofSeconds(60));
            rogue.set(false);
            rogueThread.join();
            Checker.Result r = s.drainAndCheck(DRAIN);
            s.notes.add(sent + " messages sent twice, " + released.get() + " released at visibility 0 (a message"
                    + " received " + mostReceives.get() + " times at most, as the rogue saw it)");
            assertThat(sent).isEqualTo(RUNS);
            assertThat(released.get()).as("the rogue handed messages back").isPositive();
            assertThat(mostReceives.get())
                    .as("some message was delivered again: a copy, or one the rogue handed back")
                    .isGreaterThanOrEqualTo(2);
            assertThat(r.duplicates())
                    .as("a duplicate delivery never starts a binary again: only one claim wins")
                    .isZero();
        });
    }

    // ---- 9. SQS send failing after the DynamoDB write ----------------------------------------------------------

    @Test
    @Order(2)
    void sqsSendFailingAfterTheDynamoDbWrite() throws Exception {
        scenario("9. SQS send failing after the write", s -> {
            FailingSends sends = new FailingSends();
            SqsClient sqs = FaultClients.sqs(s.target, List.of(sends));
            Punctual flaky = s.punctual(s.dynamo, sqs, Clock.systemUTC());
            s.startExecutors(3);
            s.startSweeper(flaky, "sweeper");
            s.submitWorkers(flaky, RUNS, 0.1, 0.5, Stage::now);
            await().atMost(Duration.ofSeconds(30)).until(() -> sends.before.get() + sends.after.get() >= 6);
            sends.failing.set(false);
            Checker.Result r = s.drainAndCheck(DRAIN);
            sqs.close();
            s.notes.add(sends.before.get() + " sends failed before reaching SQS, " + sends.after.get()
                    + " failed after it (sent, reported failed)");
            assertThat(sends.before.get()).isPositive();
            assertThat(sends.after.get()).isPositive();
            assertThat(r.duplicates()).isZero();
        });
    }

    /**
     * While {@link #failing}, a third of the SendMessageBatch calls fail before they leave and a third after SQS took
     * the messages (a connection reset on the way back): the caller cannot tell which.
     */
    static final class FailingSends implements ExecutionInterceptor {
        /** Shared: the SDK allows one attribute a name per JVM, and a soak runs the scenario again. */
        private static final ExecutionAttribute<Boolean> FAIL_AFTER = new ExecutionAttribute<>("failAfter");

        final AtomicBoolean failing = new AtomicBoolean(true);
        final AtomicInteger before = new AtomicInteger();
        final AtomicInteger after = new AtomicInteger();

        @Override
        public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
            if (!failing.get() || !(c.request() instanceof SendMessageBatchRequest)) {
                return;
            }
            int dice = ThreadLocalRandom.current().nextInt(3);
            if (dice == 0) {
                before.incrementAndGet();
                throw SdkClientException.create("injected: SQS unreachable");
            }
            a.putAttribute(FAIL_AFTER, dice == 1);
        }

        @Override
        public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
            if (Boolean.TRUE.equals(a.getAttribute(FAIL_AFTER))) {
                after.incrementAndGet();
                throw SdkClientException.create("injected: connection reset after the messages were sent");
            }
        }
    }
}
