# What needs a human: runs that exhausted their receives, sweeps that fail, a queue nobody drains, runs that start
# late. Notifications go to alarm_sns_topic_arn when set.

resource "aws_cloudwatch_metric_alarm" "dlq_not_empty" {
  alarm_name        = "${var.name_prefix}-runs-dlq-not-empty"
  alarm_description = "Run messages reached the dead-letter queue after 25 receives: their runs may be stuck. Inspect, fix, then redrive to ${aws_sqs_queue.runs.name}."

  namespace   = "AWS/SQS"
  metric_name = "ApproximateNumberOfMessagesVisible"
  dimensions = {
    QueueName = aws_sqs_queue.dlq.name
  }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  treat_missing_data  = "notBreaching"

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}

resource "aws_cloudwatch_metric_alarm" "sweeper_errors" {
  alarm_name        = "${var.name_prefix}-sweeper-errors"
  alarm_description = "The sweeper Lambda failed: due runs are not being queued. Failed invocations are in ${aws_sqs_queue.sweeper_failures.name}."

  namespace   = "AWS/Lambda"
  metric_name = "Errors"
  dimensions = {
    FunctionName = aws_lambda_function.this["sweeper"].function_name
  }
  statistic           = "Sum"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = 0
  treat_missing_data  = "notBreaching"

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}

# Delayed messages (runs not yet due) are not counted until they become visible. A run executing for a long time
# keeps its message in flight, which SQS also counts here: raise the threshold for fleets of hour-long runs.
resource "aws_cloudwatch_metric_alarm" "queue_oldest_message" {
  alarm_name        = "${var.name_prefix}-runs-oldest-message"
  alarm_description = "A run message has waited more than ${var.queue_age_alarm_seconds} s: executors are missing, stuck or too few."

  namespace   = "AWS/SQS"
  metric_name = "ApproximateAgeOfOldestMessage"
  dimensions = {
    QueueName = aws_sqs_queue.runs.name
  }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 5
  datapoints_to_alarm = 5
  comparison_operator = "GreaterThanThreshold"
  threshold           = var.queue_age_alarm_seconds
  treat_missing_data  = "notBreaching"

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}

# Firing lateness (claim time - due time) comes from the executor's Embedded Metric Format lines
# (core/.../exec/FiringMetrics.java): namespace Punctual, dimension Prefix.
resource "aws_cloudwatch_metric_alarm" "firing_lateness" {
  alarm_name        = "${var.name_prefix}-firing-lateness-p99"
  alarm_description = "p99 firing lateness over 5 minutes exceeds ${var.firing_lateness_alarm_ms} ms: runs start late."

  namespace   = "Punctual"
  metric_name = "FiringLatenessMs"
  dimensions = {
    Prefix = var.name_prefix
  }
  extended_statistic  = "p99"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "GreaterThanThreshold"
  threshold           = var.firing_lateness_alarm_ms
  treat_missing_data  = "notBreaching"

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}
