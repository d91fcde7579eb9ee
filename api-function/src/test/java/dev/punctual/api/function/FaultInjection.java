package dev.punctual.api.function;

import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/** Makes DynamoDB throttle every transaction while {@link #throttleTransactions} is set; off by default. */
public class FaultInjection implements ExecutionInterceptor {
    static volatile boolean throttleTransactions;

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (throttleTransactions && context.request() instanceof TransactWriteItemsRequest) {
            throw ProvisionedThroughputExceededException.builder()
                    .statusCode(400)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ProvisionedThroughputExceededException")
                            .errorMessage("injected throttling")
                            .build())
                    .message("injected throttling")
                    .build();
        }
    }
}
