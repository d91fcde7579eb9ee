package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.Priming;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.testing.TestStack;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementErrorCodeEnum;

/** An executor's priming makes the calls a run makes, on DynamoDB Local, and writes nothing. */
class PrimingTest {
    @Test
    void makesTheRunsCallsAndEveryClaimLosesOnItsCondition() {
        Settings settings = TestStack.isolatedSettings().build();
        Fixture.stack(settings, Clock.systemUTC());
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        AtomicInteger claimsWon = new AtomicInteger();
        AtomicInteger claimsLost = new AtomicInteger();
        Punctual executor = Fixture.executorSide(
                settings,
                Fixture.dynamoWith(new ExecutionInterceptor() {
                    @Override
                    public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
                        calls.computeIfAbsent(c.request().getClass().getSimpleName(), k -> new AtomicInteger())
                                .incrementAndGet();
                        if (c.response() instanceof BatchExecuteStatementResponse r) {
                            r.responses()
                                    .forEach(s -> (s.error() != null
                                                            && s.error().code()
                                                                    == BatchStatementErrorCodeEnum
                                                                            .CONDITIONAL_CHECK_FAILED
                                                    ? claimsLost
                                                    : claimsWon)
                                            .incrementAndGet());
                        }
                    }
                }),
                AwsClients.s3(TestStack.target()));

        int made = Priming.prime(executor.jobs, executor.runs, Clock.systemUTC(), "primer", 30);

        assertThat(made).isEqualTo(30);
        assertThat(calls)
                .hasEntrySatisfying("GetItemRequest", n -> assertThat(n.get()).isEqualTo(10))
                .hasEntrySatisfying(
                        "BatchGetItemRequest", n -> assertThat(n.get()).isEqualTo(10))
                .hasEntrySatisfying(
                        "BatchExecuteStatementRequest", n -> assertThat(n.get()).isEqualTo(10));
        assertThat(claimsLost.get()).isEqualTo(40);
        assertThat(claimsWon.get()).isZero();
        assertThat(executor.runs.listForJob("~priming", 100, null).items()).isEmpty();
    }

    @Test
    void aFailingCallEndsThePrimingAndTheExecutorStartsAnyway() {
        Settings settings = TestStack.isolatedSettings().build();
        Fixture.stack(settings, Clock.systemUTC());
        Punctual executor = Fixture.executorSide(
                settings,
                Fixture.dynamoFailingWhen(r -> r instanceof BatchGetItemRequest),
                AwsClients.s3(TestStack.target()));

        assertThat(Priming.prime(executor.jobs, executor.runs, Clock.systemUTC(), "primer", 30))
                .as("the strong read went, the batched read failed")
                .isEqualTo(1);
    }
}
