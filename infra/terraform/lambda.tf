# The api and sweeper Lambdas: Quarkus's stream handler on java21, or a native executable on provided.al2023.
# Both are invoked through a `live` alias: it points at $LATEST, or at the published version when SnapStart is on.

resource "aws_cloudwatch_log_group" "api" {
  name              = "/aws/lambda/${var.name_prefix}-api"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_lambda_function" "api" {
  function_name = "${var.name_prefix}-api"
  description   = "Punctual HTTP API (API Gateway HTTP API, payload format 2.0)"
  role          = aws_iam_role.api.arn

  filename         = local.api_zip
  source_code_hash = filebase64sha256(local.api_zip)
  runtime          = var.native ? "provided.al2023" : "java21"
  handler          = var.native ? "not.used.in.provided.runtime" : "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest"
  architectures    = [var.lambda_architecture]

  memory_size                    = var.api_memory_size
  timeout                        = var.api_timeout
  reserved_concurrent_executions = var.api_reserved_concurrency
  publish                        = local.snap_start

  dynamic "snap_start" {
    for_each = local.snap_start ? [1] : []

    content {
      apply_on = "PublishedVersions"
    }
  }

  environment {
    variables = local.lambda_environment
  }

  tags = var.tags

  depends_on = [aws_cloudwatch_log_group.api, aws_iam_role_policy.api_logs]
}

resource "aws_lambda_alias" "api" {
  name             = "live"
  function_name    = aws_lambda_function.api.function_name
  function_version = aws_lambda_function.api.version
}

resource "aws_cloudwatch_log_group" "sweeper" {
  name              = "/aws/lambda/${var.name_prefix}-sweeper"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_lambda_function" "sweeper" {
  function_name = "${var.name_prefix}-sweeper"
  description   = "Punctual sweeper: queues due runs (EventBridge, every minute)"
  role          = aws_iam_role.sweeper.arn

  filename         = local.sweeper_zip
  source_code_hash = filebase64sha256(local.sweeper_zip)
  runtime          = var.native ? "provided.al2023" : "java21"
  handler          = var.native ? "not.used.in.provided.runtime" : "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest"
  architectures    = [var.lambda_architecture]

  memory_size = var.sweeper_memory_size
  timeout     = var.sweeper_timeout
  # Sweeps are idempotent; a cap keeps a slow sweep and the next tick from piling up further ones.
  reserved_concurrent_executions = var.sweeper_reserved_concurrency
  publish                        = local.snap_start

  dynamic "snap_start" {
    for_each = local.snap_start ? [1] : []

    content {
      apply_on = "PublishedVersions"
    }
  }

  environment {
    variables = local.lambda_environment
  }

  tags = var.tags

  depends_on = [aws_cloudwatch_log_group.sweeper, aws_iam_role_policy.sweeper_logs]
}

resource "aws_lambda_alias" "sweeper" {
  name             = "live"
  function_name    = aws_lambda_function.sweeper.function_name
  function_version = aws_lambda_function.sweeper.version
}

# A failed sweep is not retried: the next tick, a minute later, sweeps the same buckets again. An event older
# than a minute (throttled behind the reserved concurrency) is dropped for the same reason.
resource "aws_lambda_function_event_invoke_config" "sweeper" {
  function_name                = aws_lambda_function.sweeper.function_name
  qualifier                    = aws_lambda_alias.sweeper.name
  maximum_retry_attempts       = 0
  maximum_event_age_in_seconds = 60

  destination_config {
    on_failure {
      destination = aws_sqs_queue.sweeper_failures.arn
    }
  }

  # Lambda checks the role may send to the destination when the configuration is put.
  depends_on = [aws_iam_role_policy.sweeper_failure_destination]
}

# Optional function URL of the api (LocalStack without HTTP APIs); same event format as the HTTP API.
resource "aws_lambda_function_url" "api" {
  count = var.create_api_function_url ? 1 : 0

  function_name      = aws_lambda_function.api.function_name
  qualifier          = aws_lambda_alias.api.name
  authorization_type = var.api_function_url_authorization_type
}

resource "aws_lambda_permission" "api_function_url" {
  count = var.create_api_function_url && var.api_function_url_authorization_type == "NONE" ? 1 : 0

  statement_id           = "AllowPublicFunctionUrl"
  action                 = "lambda:InvokeFunctionUrl"
  function_name          = aws_lambda_function.api.function_name
  qualifier              = aws_lambda_alias.api.name
  principal              = "*"
  function_url_auth_type = "NONE"
}
