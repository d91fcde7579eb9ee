################################################################################
# Names
################################################################################

variable "name_prefix" {
  description = "Prefix of every resource name; the code's `punctual.prefix` (tables `<prefix>-jobs`, `-runs`, `-binaries`, `-sweeps`, queues `<prefix>-runs` and `<prefix>-runs-dlq`)."
  type        = string
  default     = "punctual"

  validation {
    # Lower case because it is also part of the bucket name; short enough for IAM role and ECS names.
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,30}$", var.name_prefix))
    error_message = "name_prefix must be 1-31 characters of a-z, 0-9 and '-', starting with a letter or digit."
  }
}

variable "tags" {
  description = "Tags added to every resource that takes tags."
  type        = map(string)
  default     = {}
}

################################################################################
# Tables, queue, bucket
################################################################################

variable "lease_seconds" {
  description = "Executor lease on a running run (`punctual.lease`), and therefore the run queue's visibility timeout. Must exceed the 20 s heartbeat."
  type        = number
  default     = 60

  validation {
    condition     = var.lease_seconds > 20 && var.lease_seconds <= 43200 && floor(var.lease_seconds) == var.lease_seconds
    error_message = "lease_seconds must be a whole number of seconds above the 20 s heartbeat and at most 43200 (SQS's maximum visibility timeout)."
  }
}

variable "table_deletion_protection" {
  description = "Turn on DynamoDB deletion protection for the four tables."
  type        = bool
  default     = false
}

variable "bucket_name" {
  description = "Name of the artifacts bucket (binaries and run logs). Null: `<name_prefix>-artifacts-<account id>`."
  type        = string
  default     = null
}

variable "force_destroy" {
  description = "Let `terraform destroy` delete the artifacts bucket with its objects (and every version)."
  type        = bool
  default     = false
}

variable "kms_key_arn" {
  description = "Customer-managed KMS key for the artifacts bucket (SSE-KMS with a bucket key). Null: SSE-S3 (AES256). The API and executor roles get kms:GenerateDataKey and kms:Decrypt on it."
  type        = string
  default     = null
}

variable "log_retention_days" {
  description = "Days run logs (`logs/` in the bucket) and the CloudWatch log groups are kept."
  type        = number
  default     = 30

  validation {
    # The values CloudWatch Logs accepts, so one number serves the log groups and the bucket lifecycle.
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be a retention CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...)."
  }
}

variable "noncurrent_version_retention_days" {
  description = "Days a replaced or deleted object version is kept in the versioned artifacts bucket."
  type        = number
  default     = 30
}

################################################################################
# Lambdas (api, sweeper)
################################################################################

variable "api_zip" {
  description = "The api Lambda's package (`mvn -pl api-function -am package` builds it). A relative path is resolved against this module's directory."
  type        = string
  default     = "../../api-function/target/function.zip"
}

variable "sweeper_zip" {
  description = "The sweeper Lambda's package (`mvn -pl sweeper-function -am package` builds it). A relative path is resolved against this module's directory."
  type        = string
  default     = "../../sweeper-function/target/function.zip"
}

variable "native" {
  description = "The zips hold Quarkus native executables (built with -Dnative): runtime provided.al2023 instead of java21."
  type        = bool
  default     = false
}

variable "lambda_architecture" {
  description = "Instruction set of both Lambdas: x86_64 or arm64 (a native build must match it)."
  type        = string
  default     = "x86_64"

  validation {
    condition     = contains(["x86_64", "arm64"], var.lambda_architecture)
    error_message = "lambda_architecture must be x86_64 or arm64."
  }
}

variable "snap_start" {
  description = "Turn on Lambda SnapStart (java21 only; ignored when native): versions are published and invoked through the `live` alias."
  type        = bool
  default     = false
}

variable "api_memory_size" {
  description = "Memory of the api Lambda, in MB."
  type        = number
  default     = 1024
}

variable "api_timeout" {
  description = "Timeout of the api Lambda, in seconds (API Gateway waits at most 30). Above 20: a log read may wait up to 20 s for a running attempt's output (RunLogs.MAX_WAIT_SECONDS)."
  type        = number
  default     = 30

  validation {
    condition     = var.api_timeout > 20 && var.api_timeout <= 900
    error_message = "api_timeout must be over 20 s (a log read with wait may take 20 s: GET .../log?wait=20) and at most 900 s (Lambda's limit)."
  }
}

variable "api_reserved_concurrency" {
  description = "Reserved concurrency of the api Lambda; -1 for none."
  type        = number
  default     = -1
}

variable "sweeper_memory_size" {
  description = "Memory of the sweeper Lambda, in MB: 1769 is one vCPU, which moves about 900 runs a second into SQS once warm, 600 in a new JVM (README.md, Sweeping at scale)."
  type        = number
  default     = 1769
}

variable "sweeper_timeout" {
  description = "Timeout of the sweeper Lambda, in seconds."
  type        = number
  default     = 60
}

variable "sweeper_reserved_concurrency" {
  description = "Reserved concurrency of the sweeper Lambda: at least sweep_workers; twice that lets a sweep still finishing overlap the next minute's (sweeps are idempotent, but more at once only contend for the same rows)."
  type        = number
  default     = 2
}

variable "sweep_workers" {
  description = "Sweeper invocations a minute, each sweeping its share of the due index's shards (punctual.shards, 16 by default; at most that many workers, at most 5 for the one rule). One sends about 10,000 runs a minute within its 60 s; see README.md for 100,000."
  type        = number
  default     = 1

  validation {
    condition     = var.sweep_workers >= 1 && var.sweep_workers <= 5 && floor(var.sweep_workers) == var.sweep_workers
    error_message = "sweep_workers must be a whole number from 1 to 5 (one EventBridge rule takes 5 targets)."
  }
}

variable "extra_environment" {
  description = "Further environment variables for every component (e.g. `PUNCTUAL_S3_PATH_STYLE = \"true\"` on LocalStack, or the executor's per-run limit maxima `PUNCTUAL_LIMITS_*`). Not PUNCTUAL_AUTH_*: authentication is set by auth and its variables only. Not PUNCTUAL_WORK_DIR, PUNCTUAL_SANDBOX or PUNCTUAL_SANDBOX_DIR: the executor's directories are on its task volume and its runs are always sandboxed."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    # The API's authentication must match the routes' authorization; an override could turn it off behind them.
    condition     = alltrue([for k in keys(var.extra_environment) : !startswith(k, "PUNCTUAL_AUTH_")])
    error_message = "extra_environment must not set PUNCTUAL_AUTH_* variables: use auth, jwt_tenant_claim and iam_tenant."
  }

  validation {
    # The directories must be on the task volume (the root filesystem is read-only), and the executor runs as root:
    # without the sandbox, binaries would run as root too.
    condition     = length(setintersection(keys(var.extra_environment), ["PUNCTUAL_WORK_DIR", "PUNCTUAL_SANDBOX", "PUNCTUAL_SANDBOX_DIR"])) == 0
    error_message = "extra_environment must not set PUNCTUAL_WORK_DIR, PUNCTUAL_SANDBOX or PUNCTUAL_SANDBOX_DIR: the executor's directories are on its task volume and its runs are always sandboxed."
  }
}

################################################################################
# HTTP API
################################################################################

variable "create_http_api" {
  description = "Create the API Gateway HTTP API in front of the api Lambda (LocalStack offers HTTP APIs only on paid plans)."
  type        = bool
  default     = true
}

variable "dashboard" {
  description = "Serve the web dashboard at <api_url>/ui/ (public GET routes to the api Lambda for its static files; everything it shows comes through the authorized /v1 routes with the user's token), and let the bucket take the dashboard's presigned uploads (CORS from the API's origin). false: neither."
  type        = bool
  default     = true
}

variable "create_api_function_url" {
  description = "Also give the api Lambda a function URL (same payload format 2.0 as the HTTP API); meant for LocalStack, where HTTP APIs may be unavailable. Its authorization follows auth: AWS_IAM for \"iam\", NONE for the acknowledged \"none\"; a function URL cannot check JWTs, so auth = \"jwt\" rejects it."
  type        = bool
  default     = false
}

variable "api_throttling_burst_limit" {
  description = "Burst limit of every route of the HTTP API."
  type        = number
  default     = 100
}

variable "api_throttling_rate_limit" {
  description = "Steady-state requests per second of every route of the HTTP API."
  type        = number
  default     = 50
}

################################################################################
# Authentication of the API
################################################################################

variable "auth" {
  description = "How callers of the API authenticate: \"jwt\" (the HTTP API's JWT authorizer on every route; needs jwt_issuer and jwt_audience), \"iam\" (AWS_IAM on every route and on the function URL: callers sign with SigV4 and need execute-api:Invoke / lambda:InvokeFunctionUrl) or \"none\" (no authentication at all; needs allow_unauthenticated_api = true). Sets PUNCTUAL_AUTH_MODE of the api Lambda."
  type        = string
  default     = "jwt"
  nullable    = false

  validation {
    condition     = contains(["jwt", "iam", "none"], var.auth)
    error_message = "auth must be \"jwt\", \"iam\" or \"none\"."
  }
}

variable "allow_unauthenticated_api" {
  description = "Acknowledge what auth = \"none\" exposes: every route (and the function URL) answers anyone who can reach its URL, with no credentials. Anyone can upload binaries and run them on the executor fleet (with the executor's network access), read every job, run and log, and change or delete every job; every caller is the same single tenant `local`. Only for a local emulator or a network nobody else reaches. Required to be true with auth = \"none\"; has no effect otherwise."
  type        = bool
  default     = false
  nullable    = false
}

variable "jwt_issuer" {
  description = "With auth = \"jwt\" (required then): the issuer URL (`iss`) of the JWT authorizer, e.g. `https://cognito-idp.<region>.amazonaws.com/<user pool id>`. API Gateway reads its keys from `<issuer>/.well-known/openid-configuration`."
  type        = string
  default     = null

  validation {
    condition     = var.jwt_issuer == null || can(regex("^https://[^\\s]+$", var.jwt_issuer))
    error_message = "jwt_issuer must be an https:// URL (or null)."
  }
}

variable "jwt_audience" {
  description = "With auth = \"jwt\" (required then, at least one): the accepted audiences (`aud`, or `client_id` for Cognito access tokens) of the JWT authorizer. jwt_issuer without jwt_audience is an error, in every mode."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for a in var.jwt_audience : length(trimspace(a)) > 0])
    error_message = "jwt_audience must not contain empty strings."
  }
}

variable "jwt_tenant_claim" {
  description = "With auth = \"jwt\": the claim whose value is the tenant (e.g. \"tenant\" or \"org_id\", so a team shares its jobs). Null: the tenant is the token's issuer plus subject (`iss` + `sub`), one per user or client. Sets PUNCTUAL_AUTH_TENANT_CLAIM when not null."
  type        = string
  default     = null

  validation {
    condition     = var.jwt_tenant_claim == null || can(regex("^[^\\s]+$", var.jwt_tenant_claim))
    error_message = "jwt_tenant_claim must be a claim name without whitespace (or null)."
  }
}

variable "iam_tenant" {
  description = "With auth = \"iam\": what the tenant is. \"principal\": the calling IAM role or user (a role's session names dropped, so every session of one role shares its jobs); \"account\": the caller's AWS account (everyone in it shares the jobs). Sets PUNCTUAL_AUTH_IAM_TENANT when auth = \"iam\"."
  type        = string
  default     = "principal"
  nullable    = false

  validation {
    condition     = contains(["principal", "account"], var.iam_tenant)
    error_message = "iam_tenant must be \"principal\" or \"account\"."
  }
}

################################################################################
# Executor (ECS Fargate)
################################################################################

variable "create_executor_service" {
  description = "Create the executor's ECS cluster, task definition, service, security group and autoscaling (false on LocalStack, which runs no Fargate tasks in its free plan). The executor's task role is created either way."
  type        = bool
  default     = true
}

variable "executor_image" {
  description = "The executor container image (built from executor/src/main/docker/Dockerfile.jvm or Dockerfile.native). Required when create_executor_service. An ECR image gets pull permissions on its repository."
  type        = string
  default     = null
}

variable "executor_cpu" {
  description = "Fargate CPU units of one executor task (shared by its runs)."
  type        = number
  default     = 1024
}

variable "executor_memory" {
  description = "Fargate memory of one executor task, in MiB (shared by its runs)."
  type        = number
  default     = 2048
}

variable "executor_cpu_architecture" {
  description = "CPU architecture of the executor tasks: X86_64 or ARM64. User binaries must be built for it."
  type        = string
  default     = "X86_64"

  validation {
    condition     = contains(["X86_64", "ARM64"], var.executor_cpu_architecture)
    error_message = "executor_cpu_architecture must be X86_64 or ARM64."
  }
}

variable "executor_ephemeral_storage_gib" {
  description = "Ephemeral storage of one executor task in GiB (21-200), for the binary cache and run directories. Null: Fargate's default 20 GiB."
  type        = number
  default     = null
}

variable "executor_concurrency" {
  description = "Runs one executor task runs at once (`punctual.executor-concurrency`)."
  type        = number
  default     = 4
}

variable "shutdown_grace" {
  description = "ISO-8601 duration running binaries may finish in after SIGTERM (`punctual.shutdown-grace`). Plus the 5 s long poll it must fit in the task's 120 s stop timeout."
  type        = string
  default     = "PT30S"

  validation {
    condition     = can(regex("^PT([0-9]+M)?([0-9]+S)?$", var.shutdown_grace)) && var.shutdown_grace != "PT"
    error_message = "shutdown_grace must be an ISO-8601 duration of minutes and/or seconds, e.g. PT30S or PT1M30S."
  }
}

variable "executor_min_tasks" {
  description = "Fewest executor tasks. With 0, a run waits for a scale-out (a minute or more) when nothing is running."
  type        = number
  default     = 1
}

variable "executor_max_tasks" {
  description = "Most executor tasks."
  type        = number
  default     = 10
}

variable "executor_target_runs_per_task" {
  description = "Target of the scaling policy: (visible + in-flight run messages) per running task. Keep it at or under executor_concurrency."
  type        = number
  default     = 3
}

variable "executor_scale_in_cooldown" {
  description = "Seconds after a scale-in before another. A task stopped by scale-in drains: its runs get the shutdown grace, then are retried elsewhere."
  type        = number
  default     = 300
}

variable "executor_scale_out_cooldown" {
  description = "Seconds after a scale-out before another."
  type        = number
  default     = 60
}

variable "vpc_id" {
  description = "VPC of the executor tasks' security group. Required when create_executor_service."
  type        = string
  default     = null
}

variable "private_subnet_ids" {
  description = "Subnets of the executor tasks (and, with create_vpc_endpoints, of the interface endpoints: at most one subnet per Availability Zone then). Required when create_executor_service."
  type        = list(string)
  default     = []
}

variable "executor_assign_public_ip" {
  description = "Give executor tasks a public IP (only for public subnets without NAT, with run_egress = \"internet-https\": \"aws-endpoints\" allows no internet, so it refuses a public IP)."
  type        = bool
  default     = false
}

variable "run_egress" {
  description = "What the executor tasks, and so every binary they run, may reach (a run shares its task's network on Fargate). \"aws-endpoints\": HTTPS to the VPC endpoints of S3, DynamoDB, SQS, CloudWatch Logs, EventBridge and ECR, and nothing else: no NAT gateway needed, no internet for runs. \"internet-https\": also HTTPS (443) to any address, through the subnets' NAT gateway or a public IP, as before this variable existed. See the README's \"What a run can reach\"."
  type        = string
  default     = "aws-endpoints"
  nullable    = false

  validation {
    condition     = contains(["aws-endpoints", "internet-https"], var.run_egress)
    error_message = "run_egress must be \"aws-endpoints\" (only the VPC endpoints of the services the executor calls) or \"internet-https\" (also HTTPS to any address)."
  }
}

variable "create_vpc_endpoints" {
  description = "Create the VPC endpoints the executor uses: gateway endpoints for S3 and DynamoDB on vpc_endpoint_route_table_ids, and interface endpoints with private DNS for SQS, CloudWatch Logs, EventBridge, ECR API and ECR Docker in private_subnet_ids, whose security group admits HTTPS from the VPC. Private DNS points every workload of the VPC at them, and a VPC can have only one private-DNS endpoint per service: if yours has them already, set false and give their security groups in vpc_endpoint_security_group_ids."
  type        = bool
  default     = true
  nullable    = false
}

variable "vpc_endpoint_route_table_ids" {
  description = "With create_vpc_endpoints (required then): the route tables of private_subnet_ids. The S3 and DynamoDB gateway endpoints add routes to them, for every subnet that uses them."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "vpc_endpoint_security_group_ids" {
  description = "With create_vpc_endpoints = false: the security groups of the VPC's own SQS, CloudWatch Logs and ECR interface endpoints, which the executor may reach on 443 (they must admit HTTPS from executor_security_group_id). Required with run_egress = \"aws-endpoints\"; ignored when the module creates the endpoints."
  type        = list(string)
  default     = []
  nullable    = false
}

################################################################################
# IAM
################################################################################

variable "iam_role_permissions_boundary" {
  description = "ARN of a permissions boundary for every IAM role this module creates."
  type        = string
  default     = null
}

################################################################################
# Alarms
################################################################################

variable "alarm_sns_topic_arn" {
  description = "SNS topic notified when an alarm fires and when it recovers. Null: alarms without actions."
  type        = string
  default     = null
}

variable "queue_age_alarm_seconds" {
  description = "Alarm when the oldest message of the run queue is older than this many seconds."
  type        = number
  default     = 300
}

variable "firing_lateness_alarm_ms" {
  description = "Alarm when the p99 start lateness (a first attempt's start minus its due time, punctual.start.lateness) over 5 minutes exceeds this many milliseconds."
  type        = number
  default     = 1000
}

variable "run_events" {
  description = "Publish every run outcome (SUCCEEDED, FAILED, DEAD, CANCELLED, SKIPPED) as a \"Punctual Run State Change\" event on the <name_prefix>-runs EventBridge bus, from the executors and the sweeper (schema in docs/events.md). EventBridge charges about 1 USD per million events: about one per run, two or more for a run retried. The executor reaches EventBridge through an interface VPC endpoint (created with the others)."
  type        = bool
  default     = true
  nullable    = false
}

variable "create_dashboard" {
  description = "Create the CloudWatch dashboard <name_prefix> on the runs, start lateness, slots, queue and DLQ."
  type        = bool
  default     = true
}

variable "claim_conflicts_alarm_count" {
  description = "Alarm when more claims than this lose their conditional write in 5 minutes (punctual.claim.conflicts)."
  type        = number
  default     = 100
}

variable "retries_alarm_count" {
  description = "Alarm when more failed attempts than this are retried in 5 minutes (punctual.retries)."
  type        = number
  default     = 50
}

variable "slots_full_alarm_minutes" {
  description = "Alarm when every executor run slot has been busy for this many minutes in a row."
  type        = number
  default     = 10

  validation {
    condition     = var.slots_full_alarm_minutes >= 1
    error_message = "slots_full_alarm_minutes must be at least 1."
  }
}
