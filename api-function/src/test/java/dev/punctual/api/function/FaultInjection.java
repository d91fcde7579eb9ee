package dev.punctual.api.function;

import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * Makes DynamoDB throttle every write of many items (transactions, batches) while {@link #throttleWrites} is set,
 * and fail every read of one item while {@link #failReads} is.
 */
public class FaultInjection implements ExecutionInterceptor {
    static volatile boolean throttleWrites;
    static volatile boolean failReads;

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (failReads && context.request() instanceof software.amazon.awssdk.services.dynamodb.model.GetItemRequest) {
            throw software.amazon.awssdk.services.dynamodb.model.DynamoDbException.builder()
                    .statusCode(500)
                    .message("injected outage")
                    .build();
        }
        if (throttleWrites
                && (context.request() instanceof TransactWriteItemsRequest
                        || context.request() instanceof BatchWriteItemRequest)) {
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
