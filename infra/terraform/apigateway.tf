# The HTTP API: exactly the routes the api module serves (infra-tests compares them with its JAX-RS annotations,
# and with the path it serves its OpenAPI document at), each proxied to the api Lambda with payload format 2.0.
# Anything else is answered 404 by API Gateway itself. Every route requires what var.auth says (auth.tf): a JWT of
# jwt_issuer for jwt_audience, or a SigV4 signature.

locals {
  api_routes = [
    "POST /v1/binaries",
    "GET /v1/binaries",
    "GET /v1/binaries/{id}",
    "POST /v1/jobs",
    "POST /v1/jobs/batch",
    "GET /v1/jobs",
    "GET /v1/jobs/{id}",
    "PUT /v1/jobs/{id}",
    "DELETE /v1/jobs/{id}",
    "GET /v1/jobs/{id}/runs",
    "GET /v1/jobs/{id}/runs/{runId}",
    "GET /v1/jobs/{id}/runs/{runId}/log",
    "POST /v1/jobs/{id}/runs/{runId}/retry",
    "GET /v1/runs",
    "GET /v1/jobs/{id}/next",
    "POST /v1/jobs/{id}/trigger",
    "POST /v1/jobs/{id}/pause",
    "POST /v1/jobs/{id}/resume",
    "POST /v1/jobs/{id}/backfill",
    "POST /v1/schedules/preview",
    # The OpenAPI document (YAML; ?format=json). Served by Quarkus outside the resources, so the function itself asks
    # no identity for it (its tenant checks are in the resources): the authorizer here is what guards it. It holds
    # the API's shape only, no tenant's data.
    "GET /v1/openapi",
  ]
}

resource "aws_apigatewayv2_api" "this" {
  count = var.create_http_api ? 1 : 0

  name          = "${var.name_prefix}-api"
  description   = "Punctual HTTP API"
  protocol_type = "HTTP"

  tags = var.tags
}

resource "aws_apigatewayv2_integration" "api" {
  count = var.create_http_api ? 1 : 0

  api_id                 = aws_apigatewayv2_api.this[0].id
  integration_type       = "AWS_PROXY"
  integration_method     = "POST"
  integration_uri        = aws_lambda_alias.live["api"].invoke_arn
  payload_format_version = "2.0"
  timeout_milliseconds   = 30000
}

resource "aws_apigatewayv2_authorizer" "jwt" {
  count = var.create_http_api && var.auth == "jwt" ? 1 : 0

  api_id           = aws_apigatewayv2_api.this[0].id
  name             = "jwt"
  authorizer_type  = "JWT"
  identity_sources = ["$request.header.Authorization"]

  jwt_configuration {
    issuer   = var.jwt_issuer
    audience = var.jwt_audience
  }
}

resource "aws_apigatewayv2_route" "this" {
  for_each = var.create_http_api ? toset(local.api_routes) : toset([])

  api_id             = aws_apigatewayv2_api.this[0].id
  route_key          = each.value
  target             = "integrations/${aws_apigatewayv2_integration.api[0].id}"
  authorization_type = local.route_authorization_types[var.auth]
  authorizer_id      = var.auth == "jwt" ? aws_apigatewayv2_authorizer.jwt[0].id : null
}

# The dashboard: static files the api Lambda serves from its own package, under /ui/. These are the only routes
# without authorization, because a browser sends no Authorization header when it loads a page. They hold no
# tenant's data: the page asks everything it shows of the /v1 routes above, with the token the user gives it. A
# request that reaches a resource through them (e.g. a path with dot segments) carries no authorizer context, and
# the function fails closed on that (401). Served from the API's own origin, so the page needs no CORS to call it.
locals {
  dashboard_routes = ["GET /ui", "GET /ui/{proxy+}"]
}

resource "aws_apigatewayv2_route" "dashboard" {
  for_each = var.create_http_api && var.dashboard ? toset(local.dashboard_routes) : toset([])

  api_id             = aws_apigatewayv2_api.this[0].id
  route_key          = each.value
  target             = "integrations/${aws_apigatewayv2_integration.api[0].id}"
  authorization_type = "NONE"
}

resource "aws_cloudwatch_log_group" "api_access" {
  count = var.create_http_api ? 1 : 0

  name              = "/aws/apigateway/${var.name_prefix}-api"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_apigatewayv2_stage" "this" {
  count = var.create_http_api ? 1 : 0

  api_id      = aws_apigatewayv2_api.this[0].id
  name        = "$default"
  auto_deploy = true

  default_route_settings {
    throttling_burst_limit = var.api_throttling_burst_limit
    throttling_rate_limit  = var.api_throttling_rate_limit
  }

  access_log_settings {
    destination_arn = aws_cloudwatch_log_group.api_access[0].arn
    format = jsonencode({
      requestId          = "$context.requestId"
      sourceIp           = "$context.identity.sourceIp"
      requestTime        = "$context.requestTime"
      routeKey           = "$context.routeKey"
      status             = "$context.status"
      responseLength     = "$context.responseLength"
      latencyMs          = "$context.responseLatency"
      integrationLatency = "$context.integrationLatency"
      integrationError   = "$context.integrationErrorMessage"
      authorizerError    = "$context.authorizer.error"
    })
  }

  tags = var.tags
}

resource "aws_lambda_permission" "api_gateway" {
  count = var.create_http_api ? 1 : 0

  statement_id  = "AllowHttpApi"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this["api"].function_name
  qualifier     = aws_lambda_alias.live["api"].name
  principal     = "apigateway.amazonaws.com"
  source_arn    = "${aws_apigatewayv2_api.this[0].execution_arn}/*/*"
}
