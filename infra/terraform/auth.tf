# How callers of the API authenticate (var.auth), in one place: what every route requires, what the function URL
# requires, and what the api Lambda is told. The rules between variables (jwt needs an issuer and an audience,
# none needs allow_unauthenticated_api) are preconditions on aws_lambda_function.this["api"]: the module supports
# Terraform >= 1.5, whose variable validations cannot refer to other variables, and a precondition makes
# `terraform plan` fail, where a `check` block would only warn.

locals {
  # Authorization of every HTTP API route, by mode. "none" opens the routes only with the acknowledgement: the
  # precondition already rejects "none" without it, and the routes stay closed even if that check were removed.
  route_authorization_types = {
    jwt  = "JWT"
    iam  = "AWS_IAM"
    none = var.allow_unauthenticated_api ? "NONE" : "AWS_IAM"
  }

  # A function URL cannot check JWTs; with "jwt" none may be created (precondition on aws_lambda_function_url.api).
  function_url_authorization_types = {
    jwt  = "AWS_IAM"
    iam  = "AWS_IAM"
    none = var.allow_unauthenticated_api ? "NONE" : "AWS_IAM"
  }

  # What the api Lambda reads (punctual.auth-mode, .auth-tenant-claim, .auth-iam-tenant). Merged after
  # extra_environment, which may not set PUNCTUAL_AUTH_* anyway, so the code always sees the routes' mode.
  auth_environment = merge(
    { PUNCTUAL_AUTH_MODE = var.auth },
    var.auth == "jwt" && var.jwt_tenant_claim != null ? { PUNCTUAL_AUTH_TENANT_CLAIM = var.jwt_tenant_claim } : {},
    var.auth == "iam" ? { PUNCTUAL_AUTH_IAM_TENANT = var.iam_tenant } : {},
  )

  # The API checks request URIs itself (api/HttpEdge: a problem naming the bad parameter); Quarkus's own check,
  # made before any route, would answer a bare 400. JVM runtime only: a native build keeps the bare 400.
  api_jvm_environment = var.native ? {} : { JAVA_TOOL_OPTIONS = "-Dvertx.disableURIValidation=true" }
}
