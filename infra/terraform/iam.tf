# One role per component, declared once (aws_iam_role.this, by the suffix of the role's name). Each component's
# DynamoDB, SQS and S3 permissions are in ONE policy document of its own (data.aws_iam_policy_document.component
# ["api"], ["sweeper"], ["executor"], from local.component_permissions), listing exactly the calls its code makes on
# exactly the resources it makes them on; infra-tests derives the same list from the compiled code and fails on
# drift. Logging, KMS and the sweeper's failure destination are separate documents: the code itself never calls them.

data "aws_iam_policy_document" "lambda_assume" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

data "aws_iam_policy_document" "ecs_tasks_assume" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["ecs-tasks.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account_id]
    }

    condition {
      test     = "ArnLike"
      variable = "aws:SourceArn"
      values   = ["arn:${local.partition}:ecs:${local.region}:${local.account_id}:*"]
    }
  }
}

################################################################################
# The roles, and the one policy of each role's own permissions
################################################################################

locals {
  # Every role the module can create, each always created unless `create` says otherwise. The executor's task role
  # is created even without the ECS service, for executors run elsewhere; the execution role, which only ECS uses,
  # is not.
  iam_role_settings = {
    api = {
      description        = "Punctual api Lambda"
      assume_role_policy = data.aws_iam_policy_document.lambda_assume.json
      policy_name        = "tables-queue-bucket"
      policy             = data.aws_iam_policy_document.component["api"].json
    }

    sweeper = {
      description        = "Punctual sweeper Lambda"
      assume_role_policy = data.aws_iam_policy_document.lambda_assume.json
      policy_name        = "tables-queue"
      policy             = data.aws_iam_policy_document.component["sweeper"].json
    }

    executor-task = {
      description        = "Punctual executor: the task role its program runs with (never visible to user binaries)"
      assume_role_policy = data.aws_iam_policy_document.ecs_tasks_assume.json
      policy_name        = "tables-queue-bucket"
      policy             = data.aws_iam_policy_document.component["executor"].json
    }

    executor-execution = {
      create             = var.create_executor_service
      description        = "Punctual executor: ECS pulls the image and ships the container's logs with it"
      assume_role_policy = data.aws_iam_policy_document.ecs_tasks_assume.json
      policy_name        = "pull-and-log"
      policy             = one(data.aws_iam_policy_document.executor_execution[*].json)
    }
  }

  iam_roles = { for name, role in local.iam_role_settings : name => role if try(role.create, true) }
}

resource "aws_iam_role" "this" {
  for_each = local.iam_roles

  name                 = "${var.name_prefix}-${each.key}"
  description          = each.value.description
  assume_role_policy   = each.value.assume_role_policy
  permissions_boundary = var.iam_role_permissions_boundary

  tags = var.tags
}

resource "aws_iam_role_policy" "this" {
  for_each = local.iam_roles

  name   = each.value.policy_name
  role   = aws_iam_role.this[each.key].id
  policy = each.value.policy
}

################################################################################
# What each component's code calls: one statement a line, as sid, actions, resources
################################################################################

locals {
  # The statements of data.aws_iam_policy_document.component[<component>], in order. The sweeper's Lambda also
  # needs its failure destination, and the executor-execution role is ECS's own (both below).
  component_permissions = {
    api = [
      # Create (transaction: job + first run), get and delete jobs; dispatch runs due within the lookahead.
      # BatchGetItem: GET /v1/jobs reads a page's jobs by key (the byOwner index holds keys only).
      { sid = "Jobs", actions = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"], resources = [aws_dynamodb_table.this["jobs"].arn] },
      # GET /v1/jobs: an owner's jobs through the byOwner index.
      { sid = "JobsByOwner", actions = ["dynamodb:Query"], resources = ["${aws_dynamodb_table.this["jobs"].arn}/index/*"] },
      # First run, dispatch marks, cancellation on delete, and GET /v1/jobs/{id}/runs (a query of the base table).
      # PutItem/DeleteItem also arm and remove a job's watch (its expectation's check, <job>#watch). BatchGetItem:
      # GET /v1/runs reads a page's runs by key (the byOwner index holds keys only).
      { sid = "Runs", actions = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"], resources = [aws_dynamodb_table.this["runs"].arn] },
      # GET /v1/runs: an owner's runs through the byOwner index, and with state=DEAD their dead ones through the
      # byOwnerState index.
      { sid = "RunsByOwnerState", actions = ["dynamodb:Query"], resources = ["${aws_dynamodb_table.this["runs"].arn}/index/*"] },
      # Register binaries; mark one uploaded once its object is found (later creations then skip S3).
      { sid = "Binaries", actions = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], resources = [aws_dynamodb_table.this["binaries"].arn] },
      # GET /v1/binaries: an owner's binaries through the byOwner index.
      { sid = "BinariesByOwner", actions = ["dynamodb:Query"], resources = ["${aws_dynamodb_table.this["binaries"].arn}/index/*"] },
      # Every lane's queue: a trigger, a backfill or the retry of a DEAD run sends each run to its lane. GetQueueUrl
      # only matters where PUNCTUAL_QUEUE_URL is unset; SendMessage also covers SendMessageBatch.
      { sid = "RunQueue", actions = ["sqs:SendMessage", "sqs:GetQueueUrl"], resources = values(aws_sqs_queue.runs)[*].arn },
      # The presigned upload URL carries the API role's permissions: the role itself must allow the PUT.
      { sid = "UploadBinaries", actions = ["s3:PutObject"], resources = ["${aws_s3_bucket.artifacts.arn}/binaries/*"] },
      # HeadObject of a binary (uploaded yet?) and reading run logs, and the chunks of a running attempt's output.
      { sid = "ReadArtifacts", actions = ["s3:GetObject"], resources = ["${aws_s3_bucket.artifacts.arn}/binaries/*", "${aws_s3_bucket.artifacts.arn}/logs/*"] },
      # Listing the chunks of a running attempt's output (GET …/log while RUNNING: logs/<job>/<run>/attempt-<n>/);
      # also makes a HeadObject of a missing key answer 404 rather than 403, which is why it cannot be narrowed by an
      # s3:prefix condition (a HeadObject carries no prefix, and would then be refused).
      { sid = "ListArtifacts", actions = ["s3:ListBucket"], resources = [aws_s3_bucket.artifacts.arn] },
    ]

    sweeper = [
      # Dispatch: read the sweep's jobs a hundred at a time (BatchGetItem) or one (GetItem), advance their pending runs.
      { sid = "Jobs", actions = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem"], resources = [aws_dynamodb_table.this["jobs"].arn] },
      # Dispatch: mark QUEUED, put the next occurrence; recovery: re-read a stuck run, re-index or unindex it.
      # BatchGetItem: the runs the due index (keys only) names. A job's watch: moved on (PutItem) or ended
      # (DeleteItem), and the check's query of the job's recent runs for a success (a query of the base table).
      { sid = "Runs", actions = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"], resources = [aws_dynamodb_table.this["runs"].arn] },
      # The sweep: every shard of every minute bucket of the byDue index.
      { sid = "RunsByDue", actions = ["dynamodb:Query"], resources = ["${aws_dynamodb_table.this["runs"].arn}/index/*"] },
      # The watermarks, one per shard in one item: read (GetItem), made by the first sweep (PutItem), moved on
      # (UpdateItem); the single watermark of earlier versions read where a shard has none.
      { sid = "Sweeps", actions = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], resources = [aws_dynamodb_table.this["sweeps"].arn] },
      # Every lane's queue: dispatch sends each run to its lane (a run resent after waiting, a lane up).
      # GetQueueAttributes: each lane's depth, sampled once a sweep (punctual.queue.messages, tagged lane).
      { sid = "RunQueue", actions = ["sqs:SendMessage", "sqs:GetQueueUrl", "sqs:GetQueueAttributes"], resources = values(aws_sqs_queue.runs)[*].arn },
      # Dead-letter reconciliation: each sweep drains every lane's DLQ and marks the runs they name DEAD.
      { sid = "RunDeadLetterQueue", actions = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueUrl"], resources = values(aws_sqs_queue.dlq)[*].arn },
      # Outcomes the sweeper writes (a run a catch-up policy leaves out, a dead-lettered run), on the runs bus.
      { sid = "RunEvents", actions = ["events:PutEvents"], resources = [aws_cloudwatch_event_bus.runs.arn] },
    ]

    executor = [
      # The job read around the claim (its binary, args and env; deleted or paused?), the strong reads of the runs
      # claimed at once together (BatchGetItem); under an overlap policy the claim's update of its active run;
      # under a tenant's running limit, its slots read (BatchGetItem), taken (UpdateItem) and given back (DeleteItem).
      { sid = "Jobs", actions = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"], resources = [aws_dynamodb_table.this["jobs"].arn] },
      # Claim (and the overlap check on the job's active run), heartbeat, result, cancellation of a deleted job's run;
      # PartiQLUpdate: those writes, when several are asked at once, as the statements of one BatchExecuteStatement.
      { sid = "Runs", actions = ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem", "dynamodb:PartiQLUpdate"], resources = [aws_dynamodb_table.this["runs"].arn] },
      # Every lane's queue, received from at once: delete when finished, extend visibility (heartbeat) or set it to the
      # retry backoff, in the queue a message came from; send a fresh message for a run waiting on an overlapping one
      # (overlap: queue), in its lane.
      { sid = "RunQueue", actions = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueUrl", "sqs:SendMessage"], resources = values(aws_sqs_queue.runs)[*].arn },
      { sid = "ReadBinaries", actions = ["s3:GetObject"], resources = ["${aws_s3_bucket.artifacts.arn}/binaries/*"] },
      # An attempt's log at its end, and the chunks of its output while it runs. No DeleteObject: the chunks are left
      # to the bucket's expire-run-logs rule (s3.tf), with the logs.
      { sid = "WriteLogs", actions = ["s3:PutObject"], resources = ["${aws_s3_bucket.artifacts.arn}/logs/*"] },
      { sid = "RunEvents", actions = ["events:PutEvents"], resources = [aws_cloudwatch_event_bus.runs.arn] },
    ]
  }
}

data "aws_iam_policy_document" "component" {
  for_each = local.component_permissions

  dynamic "statement" {
    for_each = each.value

    content {
      sid       = statement.value.sid
      actions   = statement.value.actions
      resources = statement.value.resources
    }
  }
}

################################################################################
# The sweeper's Lambda: where it sends failed invocations
################################################################################

# Lambda itself sends failed asynchronous invocations to the on-failure destination, with the function's role.
data "aws_iam_policy_document" "sweeper_failure_destination" {
  statement {
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.sweeper_failures.arn]
  }
}

resource "aws_iam_role_policy" "sweeper_failure_destination" {
  name   = "failure-destination"
  role   = aws_iam_role.this["sweeper"].id
  policy = data.aws_iam_policy_document.sweeper_failure_destination.json
}

################################################################################
# The executor's execution role: what ECS itself does for it
################################################################################

data "aws_iam_policy_document" "executor_execution" {
  count = var.create_executor_service ? 1 : 0

  statement {
    sid       = "Logs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${aws_cloudwatch_log_group.executor[0].arn}:*"]
  }

  # ecr:GetAuthorizationToken has no resource-level permissions: AWS only accepts "*" for it.
  dynamic "statement" {
    for_each = local.executor_ecr == null ? [] : [local.executor_ecr]

    content {
      sid       = "EcrToken"
      actions   = ["ecr:GetAuthorizationToken"]
      resources = ["*"]
    }
  }

  dynamic "statement" {
    for_each = local.executor_ecr == null ? [] : [local.executor_ecr]

    content {
      sid       = "EcrPull"
      actions   = ["ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"]
      resources = ["arn:${local.partition}:ecr:${statement.value.region}:${statement.value.account}:repository/${statement.value.repository}"]
    }
  }
}

################################################################################
# Both Lambdas: their own log group only
################################################################################

data "aws_iam_policy_document" "lambda_logs" {
  for_each = local.lambda_functions

  statement {
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${aws_cloudwatch_log_group.lambda[each.key].arn}:*"]
  }
}

resource "aws_iam_role_policy" "lambda_logs" {
  for_each = local.lambda_functions

  name   = "logs"
  role   = aws_iam_role.this[each.key].id
  policy = data.aws_iam_policy_document.lambda_logs[each.key].json
}

################################################################################
# SSE-KMS on the artifacts bucket (optional)
################################################################################

# The roles that read and write the bucket's objects: the api (uploads are presigned with its credentials, logs
# read) and the executor's task role.
resource "aws_iam_role_policy" "artifacts_kms" {
  for_each = toset(var.kms_key_arn == null ? [] : ["api", "executor-task"])

  name   = "artifacts-kms"
  role   = aws_iam_role.this[each.key].id
  policy = data.aws_iam_policy_document.artifacts_kms[0].json
}

data "aws_iam_policy_document" "artifacts_kms" {
  count = var.kms_key_arn == null ? 0 : 1

  statement {
    actions   = ["kms:GenerateDataKey", "kms:Decrypt"]
    resources = [var.kms_key_arn]

    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = ["s3.${local.region}.amazonaws.com"]
    }
  }
}
