# Each table, Lambda, role, role policy and alarm used to have a block of its own, and the run queue was the only
# one. These blocks let a deployment made then keep them: Terraform moves them in its state instead of destroying
# and recreating them (a state without the old address skips the block). Removing a block would break the upgrade of
# a deployment that has not applied it yet.

# Lambdas (lambda.tf)

moved {
  from = aws_cloudwatch_log_group.api
  to   = aws_cloudwatch_log_group.lambda["api"]
}

moved {
  from = aws_cloudwatch_log_group.sweeper
  to   = aws_cloudwatch_log_group.lambda["sweeper"]
}

moved {
  from = aws_lambda_function.api
  to   = aws_lambda_function.this["api"]
}

moved {
  from = aws_lambda_function.sweeper
  to   = aws_lambda_function.this["sweeper"]
}

moved {
  from = aws_lambda_alias.api
  to   = aws_lambda_alias.live["api"]
}

moved {
  from = aws_lambda_alias.sweeper
  to   = aws_lambda_alias.live["sweeper"]
}

# Roles and their policies (iam.tf)

moved {
  from = aws_iam_role.api
  to   = aws_iam_role.this["api"]
}

moved {
  from = aws_iam_role.sweeper
  to   = aws_iam_role.this["sweeper"]
}

moved {
  from = aws_iam_role.executor_task
  to   = aws_iam_role.this["executor-task"]
}

moved {
  from = aws_iam_role.executor_execution[0]
  to   = aws_iam_role.this["executor-execution"]
}

moved {
  from = aws_iam_role_policy.api
  to   = aws_iam_role_policy.this["api"]
}

moved {
  from = aws_iam_role_policy.sweeper
  to   = aws_iam_role_policy.this["sweeper"]
}

moved {
  from = aws_iam_role_policy.executor
  to   = aws_iam_role_policy.this["executor-task"]
}

moved {
  from = aws_iam_role_policy.executor_execution[0]
  to   = aws_iam_role_policy.this["executor-execution"]
}

moved {
  from = aws_iam_role_policy.api_logs
  to   = aws_iam_role_policy.lambda_logs["api"]
}

moved {
  from = aws_iam_role_policy.sweeper_logs
  to   = aws_iam_role_policy.lambda_logs["sweeper"]
}

moved {
  from = aws_iam_role_policy.api_kms[0]
  to   = aws_iam_role_policy.artifacts_kms["api"]
}

moved {
  from = aws_iam_role_policy.executor_kms[0]
  to   = aws_iam_role_policy.artifacts_kms["executor-task"]
}

# Alarms (alarms.tf)

moved {
  from = aws_cloudwatch_metric_alarm.dlq_not_empty
  to   = aws_cloudwatch_metric_alarm.this["dlq_not_empty"]
}

moved {
  from = aws_cloudwatch_metric_alarm.sweeper_errors
  to   = aws_cloudwatch_metric_alarm.this["sweeper_errors"]
}

moved {
  from = aws_cloudwatch_metric_alarm.queue_oldest_message
  to   = aws_cloudwatch_metric_alarm.this["queue_oldest_message"]
}

moved {
  from = aws_cloudwatch_metric_alarm.firing_lateness
  to   = aws_cloudwatch_metric_alarm.this["firing_lateness"]
}

# Tables (dynamodb.tf)

moved {
  from = aws_dynamodb_table.jobs
  to   = aws_dynamodb_table.this["jobs"]
}

moved {
  from = aws_dynamodb_table.runs
  to   = aws_dynamodb_table.this["runs"]
}

moved {
  from = aws_dynamodb_table.binaries
  to   = aws_dynamodb_table.this["binaries"]
}

moved {
  from = aws_dynamodb_table.sweeps
  to   = aws_dynamodb_table.this["sweeps"]
}

# The sweeper's timer (eventbridge.tf): one target became one per sweep worker; the first keeps its target_id.

moved {
  from = aws_cloudwatch_event_target.sweep
  to   = aws_cloudwatch_event_target.sweep["0"]
}

# The run queue and its dead-letter queue became the normal lane's (sqs.tf): one of three, declared once over
# local.run_lanes. Same names, so a deployment keeps its queues and the messages in them.

moved {
  from = aws_sqs_queue.runs
  to   = aws_sqs_queue.runs["normal"]
}

moved {
  from = aws_sqs_queue.dlq
  to   = aws_sqs_queue.dlq["normal"]
}

moved {
  from = aws_sqs_queue_redrive_allow_policy.dlq
  to   = aws_sqs_queue_redrive_allow_policy.dlq["normal"]
}
