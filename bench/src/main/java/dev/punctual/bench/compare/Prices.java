package dev.punctual.bench.compare;

/**
 * AWS list prices (us-east-1, on-demand, USD per million requests or request units), to turn counted calls into a
 * cost per million runs. EventBridge Scheduler's is per million invocations.
 */
final class Prices {
    static final double DYNAMODB_WRITE_UNIT = 0.625;
    static final double DYNAMODB_READ_UNIT = 0.125;
    static final double SQS_REQUEST = 0.40;
    static final double S3_PUT = 5.00;
    static final double S3_GET = 0.40;
    static final double EVENTBRIDGE_SCHEDULER = 1.00;

    private Prices() {}
}
