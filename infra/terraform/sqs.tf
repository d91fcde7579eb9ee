# The run queues, one per lane, each with its dead-letter queue (core/.../infra/Resources.java#runQueue). Messages
# are sent with DelaySeconds up to their due second; SQS visibility is also the retry mechanism, so the visibility
# timeout is the executor lease: a message must not reappear while its run is leased, and must reappear soon after a
# lease is abandoned.

locals {
  # The lanes (core's firing/Priority), each with what its queues' names add to the normal lane's (<prefix>-runs and
  # <prefix>-runs-dlq, the queues there always were). Only the normal lane's URL is passed (PUNCTUAL_QUEUE_URL): the
  # code makes the others' by appending the same suffix to it (queue/RunQueues), so the names must be exactly these.
  run_lanes = {
    high   = "-high"
    normal = ""
    low    = "-low"
  }
}

resource "aws_sqs_queue" "dlq" {
  for_each = local.run_lanes

  name                      = "${var.name_prefix}-runs${each.value}-dlq"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true

  tags = var.tags
}

resource "aws_sqs_queue" "runs" {
  for_each = local.run_lanes

  name                       = "${var.name_prefix}-runs${each.value}"
  visibility_timeout_seconds = var.lease_seconds
  message_retention_seconds  = 345600
  sqs_managed_sse_enabled    = true

  # 25 receives: above the 10-attempt limit of a run, with room for receives that lose a claim race.
  redrive_policy = jsonencode({ deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn, maxReceiveCount = 25 })

  tags = var.tags
}

# A lane's dead-letter queue takes its own lane's messages only, so a redrive returns each run to its lane.
resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  for_each = local.run_lanes

  queue_url = aws_sqs_queue.dlq[each.key].id

  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.runs[each.key].arn]
  })
}

# Failed sweeper invocations (after 0 retries: the next tick sweeps again) land here for inspection. Kept apart
# from the run DLQs so that a redrive of a DLQ never feeds invocation records to executors.
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

# Every queue of the module: runs<suffix> and dlq<suffix> for each lane (the normal lane's keep the keys runs and dlq
# they had when its queues were the only ones), and sweeper_failures. Taken from the queue resources whole, so that a
# lane added to local.run_lanes cannot be left without its policies.
resource "aws_sqs_queue_policy" "tls_only" {
  for_each = merge(
    { for lane, queue in aws_sqs_queue.runs : "runs${local.run_lanes[lane]}" => queue },
    { for lane, queue in aws_sqs_queue.dlq : "dlq${local.run_lanes[lane]}" => queue },
    { sweeper_failures = aws_sqs_queue.sweeper_failures },
  )

  queue_url = each.value.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [merge(local.deny_insecure_transport, {
      Action   = "sqs:*"
      Resource = each.value.arn
    })]
  })
}
