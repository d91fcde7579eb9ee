# The api and sweeper Lambdas, declared once: Quarkus's stream handler on java21, or a native executable on
# provided.al2023. Both are invoked through a `live` alias: it points at $LATEST, or at the published version when
# SnapStart is on. Each has its own log group, its own role (iam.tf) and its own settings, below.

locals {
  # What differs between the two functions, by the suffix of their names; everything else is the same for both.
  lambda_functions = {
    api = {
      description          = "Punctual HTTP API (API Gateway HTTP API, payload format 2.0)"
      package              = local.api_zip
      memory_size          = var.api_memory_size
      timeout              = var.api_timeout
      reserved_concurrency = var.api_reserved_concurrency
      environment          = merge(local.lambda_environment, local.auth_environment, local.api_jvm_environment)
    }

    sweeper = {
      description = "Punctual sweeper: queues due runs (EventBridge, every minute)"
      package     = local.sweeper_zip
      memory_size = var.sweeper_memory_size
      timeout     = var.sweeper_timeout
      # Sweeps are idempotent; a cap keeps a slow sweep and the next tick from piling up further ones.
      reserved_concurrency = var.sweeper_reserved_concurrency
      # Its meters (dead letters, queue depth) as Embedded Metric Format lines, written before each sweep returns.
      environment = merge(local.lambda_environment, local.run_events_environment, { PUNCTUAL_EMF_METRICS = "true" })
    }
  }
}

resource "aws_cloudwatch_log_group" "lambda" {
  for_each = local.lambda_functions

  name              = "/aws/lambda/${var.name_prefix}-${each.key}"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_lambda_function" "this" {
  for_each = local.lambda_functions

  function_name = "${var.name_prefix}-${each.key}"
  description   = each.value.description
  role          = aws_iam_role.this[each.key].arn

  filename         = each.value.package
  source_code_hash = filebase64sha256(each.value.package)
  runtime          = var.native ? "provided.al2023" : "java21"
  handler          = var.native ? "not.used.in.provided.runtime" : "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest"
  architectures    = [var.lambda_architecture]

  memory_size                    = each.value.memory_size
  timeout                        = each.value.timeout
  reserved_concurrent_executions = each.value.reserved_concurrency
  publish                        = local.snap_start

  dynamic "snap_start" {
    for_each = local.snap_start ? [1] : []

    content {
      apply_on = "PublishedVersions"
    }
  }

  environment {
    variables = each.value.environment
  }

  tags = var.tags

  # An invocation before its log group and logs policy exist would have Lambda create the group itself, kept
  # forever, or fail to log.
  depends_on = [aws_cloudwatch_log_group.lambda, aws_iam_role_policy.lambda_logs]

  # The rules of auth.tf that tie variables together, on the api only so that each fails once; each makes
  # `terraform plan` fail.
  lifecycle {
    precondition {
      condition     = each.key != "api" || var.auth != "none" || var.allow_unauthenticated_api
      error_message = "auth = \"none\" leaves the API without authentication: anyone who can reach its URL can upload binaries and run them on the executor fleet, and read, change and delete every job, all as the single tenant \"local\". Set allow_unauthenticated_api = true to accept that (local emulators only), or use auth = \"jwt\" or \"iam\"."
    }

    precondition {
      condition     = each.key != "api" || var.jwt_issuer == null || length(var.jwt_audience) > 0
      error_message = "jwt_issuer is set without jwt_audience: set the audiences (client ids) the API accepts tokens for."
    }

    precondition {
      condition     = each.key != "api" || var.auth != "jwt" || (var.jwt_issuer != null && length(var.jwt_audience) > 0)
      error_message = "auth = \"jwt\" (the default) needs jwt_issuer and jwt_audience: the issuer URL and the audiences of the tokens the API accepts. Or choose auth = \"iam\" (SigV4-signed calls)."
    }

    precondition {
      condition     = each.key != "api" || var.auth == "jwt" || (var.jwt_issuer == null && length(var.jwt_audience) == 0 && var.jwt_tenant_claim == null)
      error_message = "jwt_issuer, jwt_audience and jwt_tenant_claim apply to auth = \"jwt\" only; auth is \"${var.auth}\"."
    }
  }
}

resource "aws_lambda_alias" "live" {
  for_each = local.lambda_functions

  name             = "live"
  function_name    = aws_lambda_function.this[each.key].function_name
  function_version = aws_lambda_function.this[each.key].version
}

# A failed sweep is not retried: the next tick, a minute later, sweeps the same buckets again. An event older
# than a minute (throttled behind the reserved concurrency) is dropped for the same reason.
resource "aws_lambda_function_event_invoke_config" "sweeper" {
  function_name                = aws_lambda_function.this["sweeper"].function_name
  qualifier                    = aws_lambda_alias.live["sweeper"].name
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

# Optional function URL of the api (LocalStack without HTTP APIs); same event format as the HTTP API. AWS_IAM with
# auth = "iam" (the event carries the caller's principal, as the HTTP API's does), NONE with the acknowledged "none".
resource "aws_lambda_function_url" "api" {
  count = var.create_api_function_url ? 1 : 0

  function_name      = aws_lambda_function.this["api"].function_name
  qualifier          = aws_lambda_alias.live["api"].name
  authorization_type = local.function_url_authorization_types[var.auth]

  lifecycle {
    precondition {
      condition     = var.auth != "jwt"
      error_message = "A function URL cannot check JWTs: with auth = \"jwt\" use the HTTP API (create_api_function_url = false), or choose auth = \"iam\"."
    }
  }
}

resource "aws_lambda_permission" "api_function_url" {
  count = var.create_api_function_url && local.function_url_authorization_types[var.auth] == "NONE" ? 1 : 0

  statement_id           = "AllowPublicFunctionUrl"
  action                 = "lambda:InvokeFunctionUrl"
  function_name          = aws_lambda_function.this["api"].function_name
  qualifier              = aws_lambda_alias.live["api"].name
  principal              = "*"
  function_url_auth_type = "NONE"
}
