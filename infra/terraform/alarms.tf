# What needs a human: runs that exhausted their receives, sweeps that fail, a queue nobody drains, runs that start
# late. Notifications go to alarm_sns_topic_arn when set.

locals {
  # Each alarm's name (after the prefix), what it tells, its metric, and where it differs from the usual: the
  # Maximum over 5 minutes above 0, once.
  alarms = {
    dlq_not_empty = {
      name        = "runs-dlq-not-empty"
      description = "Run messages reached the dead-letter queue after 25 receives: their runs may be stuck. Inspect, fix, then redrive to ${aws_sqs_queue.runs.name}."
      metric      = { namespace = "AWS/SQS", metric_name = "ApproximateNumberOfMessagesVisible", dimensions = { QueueName = aws_sqs_queue.dlq.name } }
    }

    sweeper_errors = {
      name        = "sweeper-errors"
      description = "The sweeper Lambda failed: due runs are not being queued. Failed invocations are in ${aws_sqs_queue.sweeper_failures.name}."
      metric      = { namespace = "AWS/Lambda", metric_name = "Errors", dimensions = { FunctionName = aws_lambda_function.this["sweeper"].function_name } }
      statistic   = "Sum"
    }

    # Delayed messages (runs not yet due) are not counted until they become visible. A run executing for a long
    # time keeps its message in flight, which SQS also counts here: raise the threshold for fleets of hour-long runs.
    queue_oldest_message = {
      name                = "runs-oldest-message"
      description         = "A run message has waited more than ${var.queue_age_alarm_seconds} s: executors are missing, stuck or too few."
      metric              = { namespace = "AWS/SQS", metric_name = "ApproximateAgeOfOldestMessage", dimensions = { QueueName = aws_sqs_queue.runs.name } }
      period              = 60
      evaluation_periods  = 5
      datapoints_to_alarm = 5
      threshold           = var.queue_age_alarm_seconds
    }

    # Start lateness (core/.../metrics/Meters.java, START_LATENESS), from the executors' Embedded Metric Format
    # lines: namespace Punctual, dimension Prefix. First attempts only; CloudWatch has every value.
    firing_lateness = {
      name               = "firing-lateness-p99"
      description        = "p99 start lateness of runs over 5 minutes exceeds ${var.firing_lateness_alarm_ms} ms: runs start late."
      metric             = { namespace = "Punctual", metric_name = "punctual.start.lateness", dimensions = { Prefix = var.name_prefix } }
      statistic          = null
      extended_statistic = "p99"
      threshold          = var.firing_lateness_alarm_ms
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "this" {
  for_each = local.alarms

  alarm_name        = "${var.name_prefix}-${each.value.name}"
  alarm_description = each.value.description

  namespace           = each.value.metric.namespace
  metric_name         = each.value.metric.metric_name
  dimensions          = each.value.metric.dimensions
  statistic           = try(each.value.statistic, "Maximum")
  extended_statistic  = try(each.value.extended_statistic, null)
  period              = try(each.value.period, 300)
  evaluation_periods  = try(each.value.evaluation_periods, 1)
  datapoints_to_alarm = try(each.value.datapoints_to_alarm, null)
  comparison_operator = "GreaterThanThreshold"
  threshold           = try(each.value.threshold, 0)
  treat_missing_data  = "notBreaching"

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}
