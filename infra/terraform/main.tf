data "aws_caller_identity" "current" {}

data "aws_partition" "current" {}

data "aws_region" "current" {}

locals {
  account_id = data.aws_caller_identity.current.account_id
  partition  = data.aws_partition.current.partition
  region     = data.aws_region.current.name

  bucket_name = coalesce(var.bucket_name, "${var.name_prefix}-artifacts-${local.account_id}")

  # Relative package paths are relative to this module, so the defaults find the Maven build of this repository.
  api_zip     = startswith(var.api_zip, "/") ? var.api_zip : "${path.module}/${var.api_zip}"
  sweeper_zip = startswith(var.sweeper_zip, "/") ? var.sweeper_zip : "${path.module}/${var.sweeper_zip}"

  # SnapStart works on published java21 versions only; every invocation goes through the `live` alias either way.
  snap_start = var.snap_start && !var.native

  alarm_actions = var.alarm_sns_topic_arn == null ? [] : [var.alarm_sns_topic_arn]

  # What every component reads (Quarkus maps PUNCTUAL_X_Y to punctual.x-y). The queue URL is passed so that no
  # component needs GetQueueUrl at start-up: the normal lane's, which the code appends the other lanes' suffixes to
  # (local.run_lanes).
  common_environment = {
    PUNCTUAL_PREFIX    = var.name_prefix
    PUNCTUAL_BUCKET    = aws_s3_bucket.artifacts.id
    PUNCTUAL_QUEUE_URL = aws_sqs_queue.runs["normal"].url
    PUNCTUAL_LEASE     = "PT${var.lease_seconds}S"
    # Jobs' webhooks are posted by the executors: only where they may reach the internet (run_egress).
    PUNCTUAL_WEBHOOKS = var.run_egress == "internet-https" ? "public" : "off"
    # One JSON object per log line (level, logger, message, thread, exception), for Logs Insights.
    QUARKUS_LOG_CONSOLE_JSON_ENABLED = "true"
  }

  # The sweeper's environment; the api Lambda adds local.auth_environment (auth.tf).
  lambda_environment = merge(
    local.common_environment,
    # Quarkus's documented setting for native executables on the provided runtime.
    var.native ? { DISABLE_SIGNAL_HANDLERS = "true" } : {},
    var.extra_environment,
  )

  executor_environment = merge(
    local.common_environment,
    {
      PUNCTUAL_EXECUTOR_CONCURRENCY = tostring(var.executor_concurrency)
      PUNCTUAL_SHUTDOWN_GRACE       = var.shutdown_grace
      # The meters (core's metrics/Meters) as Embedded Metric Format lines on stdout, once a minute; the awslogs
      # driver ships them to CloudWatch Logs, which makes them metrics (namespace Punctual).
      PUNCTUAL_EMF_METRICS = "true"
      # One JSON object per run transition on stdout (job, run, attempt, state, executor, lateness), which Logs
      # Insights reads field by field.
      PUNCTUAL_JSON_RUN_EVENTS = "true"
    },
    local.run_events_environment,
    local.executor_sandbox_environment,
    var.extra_environment,
  )

  # Where the executor keeps its files and its runs' directories: on the task volume mounted at /var/lib/punctual
  # (ecs.tf), the same paths as the images' (executor/src/main/docker). The work directory (binary cache, logs) is
  # the executor's only; every run gets a private directory under the sandbox directory. The executor is root in
  # its container, so the sandbox (every run a user of its own) is stated here, not left to a default.
  # extra_environment may not change any of them.
  executor_sandbox_environment = {
    PUNCTUAL_WORK_DIR    = "/var/lib/punctual/work"
    PUNCTUAL_SANDBOX     = "true"
    PUNCTUAL_SANDBOX_DIR = "/var/lib/punctual/sandbox"
  }

  # shutdown_grace in seconds, to check it fits the task's stop timeout.
  shutdown_grace_seconds = (
    tonumber(try(regex("([0-9]+)M", var.shutdown_grace)[0], "0")) * 60 +
    tonumber(try(regex("([0-9]+)S", var.shutdown_grace)[0], "0"))
  )

  # An ECR image gets pull permissions on its own repository only.
  executor_ecr = try(regex(
    "^(?P<account>[0-9]{12})\\.dkr\\.ecr\\.(?P<region>[a-z0-9-]+)\\.amazonaws\\.com(?:\\.cn)?/(?P<repository>[^:@]+)",
    var.executor_image,
  ), null)
}
