# Punctual on LocalStack (localstack/docker-compose.yml; localstack/init.sh runs this). Everything but the ECS
# service: LocalStack's free plan runs no Fargate tasks, so the executor runs as a plain container next to it
# (`docker compose --profile executor up`). HTTP APIs (API Gateway v2) need a paid LocalStack plan too, so by
# default the API is reached through a Lambda function URL, which delivers the same payload format 2.0.
# The API has no authentication here (auth = "none", acknowledged below): a local emulator, published on
# 127.0.0.1 only by localstack/docker-compose.yml. Never apply this example to AWS.
# Unverified: no Docker was available where this was written.

provider "aws" {
  region     = var.region
  access_key = "test"
  secret_key = "test"

  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  s3_use_path_style           = true

  endpoints {
    apigateway             = var.localstack_endpoint
    apigatewayv2           = var.localstack_endpoint
    applicationautoscaling = var.localstack_endpoint
    cloudwatch             = var.localstack_endpoint
    cloudwatchlogs         = var.localstack_endpoint
    dynamodb               = var.localstack_endpoint
    ec2                    = var.localstack_endpoint
    ecr                    = var.localstack_endpoint
    ecs                    = var.localstack_endpoint
    events                 = var.localstack_endpoint
    iam                    = var.localstack_endpoint
    kms                    = var.localstack_endpoint
    lambda                 = var.localstack_endpoint
    s3                     = var.localstack_endpoint
    sns                    = var.localstack_endpoint
    sqs                    = var.localstack_endpoint
    sts                    = var.localstack_endpoint
  }
}

module "punctual" {
  source = "../.."

  name_prefix = var.name_prefix
  # The code's default bucket name, so an executor started without the generated env file finds it too.
  bucket_name   = "${var.name_prefix}-artifacts"
  force_destroy = true

  create_executor_service = false

  create_http_api         = var.use_http_api
  create_api_function_url = true

  # No authentication: every caller is the single tenant `local`, and anyone who reaches the URL can upload and
  # run binaries. Acceptable on a LocalStack published on 127.0.0.1 only. jwt needs the HTTP API's authorizer,
  # which the free plan lacks, and LocalStack does not enforce IAM by default, so iam would protect nothing.
  auth                      = "none"
  allow_unauthenticated_api = true

  # LocalStack sets AWS_ENDPOINT_URL inside its Lambda containers; S3 must then be addressed path-style.
  extra_environment = {
    PUNCTUAL_S3_PATH_STYLE = "true"
  }
}
