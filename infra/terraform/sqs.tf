# The run queue and its dead-letter queue (core/.../infra/Resources.java#runQueue). Messages are sent with
# DelaySeconds up to their due second; SQS visibility is also the retry mechanism, so the visibility timeout is the
# executor lease: a message must not reappear while its run is leased, and must reappear soon after a lease is
# abandoned.

resource "aws_sqs_queue" "dlq" {
  name                      = "${var.name_prefix}-runs-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true

  tags = var.tags
}

resource "aws_sqs_queue" "runs" {
  name                       = "${var.name_prefix}-runs"
  visibility_timeout_seconds = var.lease_seconds
  message_retention_seconds  = 345600
  sqs_managed_sse_enabled    = true

  # 25 receives: above the 10-attempt limit of a run, with room for receives that lose a claim race.
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq.arn, maxReceiveCount = 25 })

  tags = var.tags
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  queue_url = aws_sqs_queue.dlq.id

  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.runs.arn]
  })
}

# Failed sweeper invocations (after 0 retries: the next tick sweeps again) land here for inspection. Kept apart
# from the run DLQ so that a redrive of the DLQ never feeds invocation records to executors.
resource "aws_sqs_queue" "sweeper_failures" {
  name                      = "${var.name_prefix}-sweeper-failures"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true

  tags = var.tags
}

# Deny anything but TLS. Written as JSON rather than an aws_iam_policy_document: a Deny of "sqs:*" is a
# restriction, and the policy documents of this module are kept free of wildcard actions. The bucket's policy
# (s3.tf) is the same statement, with its own Action and Resource.
locals {
  deny_insecure_transport = {
    Sid       = "DenyInsecureTransport"
    Effect    = "Deny"
    Principal = "*"
    Condition = { Bool = { "aws:SecureTransport" = "false" } }
  }
}

resource "aws_sqs_queue_policy" "tls_only" {
  for_each = {
    runs             = aws_sqs_queue.runs
    dlq              = aws_sqs_queue.dlq
    sweeper_failures = aws_sqs_queue.sweeper_failures
  }

  queue_url = each.value.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [merge(local.deny_insecure_transport, {
      Action   = "sqs:*"
      Resource = each.value.arn
    })]
  })
}
