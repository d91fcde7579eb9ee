# What needs a human: runs that exhausted their receives (in any lane), sweeps that fail, a lane's queue nobody
# drains, runs that start late, runs that end DEAD, retries or claim conflicts piling up, executors with every slot
# taken. Notifications go to alarm_sns_topic_arn when set.

locals {
  # Each alarm's name (after the prefix), what it tells, its metric, and where it differs from the usual: the
  # Maximum over 5 minutes above 0, once.
  alarms = {
    # One per lane (local.run_lanes): each lane's dead-letter queue, and its queue's oldest message. The normal
    # lane's keep the names and keys they had when it was the only queue.
    dlq_not_empty = {
      name        = "runs-dlq-not-empty"
      description = "Normal-lane run messages reached the normal lane's dead-letter queue after 25 receives: their runs may be stuck. Inspect, fix, then redrive to ${aws_sqs_queue.runs["normal"].name}."
      metric      = { namespace = "AWS/SQS", metric_name = "ApproximateNumberOfMessagesVisible", dimensions = { QueueName = aws_sqs_queue.dlq["normal"].name } }
    }

    dlq_not_empty_high = {
      name        = "runs-high-dlq-not-empty"
      description = "High-lane run messages reached the high lane's dead-letter queue after 25 receives: their runs may be stuck. Inspect, fix, then redrive to ${aws_sqs_queue.runs["high"].name}."
      metric      = { namespace = "AWS/SQS", metric_name = "ApproximateNumberOfMessagesVisible", dimensions = { QueueName = aws_sqs_queue.dlq["high"].name } }
    }

    dlq_not_empty_low = {
      name        = "runs-low-dlq-not-empty"
      description = "Low-lane run messages reached the low lane's dead-letter queue after 25 receives: their runs may be stuck. Inspect, fix, then redrive to ${aws_sqs_queue.runs["low"].name}."
      metric      = { namespace = "AWS/SQS", metric_name = "ApproximateNumberOfMessagesVisible", dimensions = { QueueName = aws_sqs_queue.dlq["low"].name } }
    }

    sweeper_errors = {
      name        = "sweeper-errors"
      description = "The sweeper Lambda failed: due runs are not being queued. Failed invocations are in ${aws_sqs_queue.sweeper_failures.name}."
      metric      = { namespace = "AWS/Lambda", metric_name = "Errors", dimensions = { FunctionName = aws_lambda_function.this["sweeper"].function_name } }
      statistic   = "Sum"
    }

    # Delayed messages (runs not yet due) are not counted until they become visible. A run executing for a long
    # time keeps its message in flight, which SQS also counts here: raise the threshold for fleets of hour-long runs.
    # Executors give the low lane one receive in thirteen while the others wait too, so under load its messages age
    # first: this alarm on the low lane is the first sign of too few executors.
    queue_oldest_message = {
      name                = "runs-oldest-message"
      description         = "A normal-lane run message has waited more than ${var.queue_age_alarm_seconds} s in ${aws_sqs_queue.runs["normal"].name}: executors are missing, stuck or too few."
      metric              = { namespace = "AWS/SQS", metric_name = "ApproximateAgeOfOldestMessage", dimensions = { QueueName = aws_sqs_queue.runs["normal"].name } }
      period              = 60
      evaluation_periods  = 5
      datapoints_to_alarm = 5
      threshold           = var.queue_age_alarm_seconds
    }

    queue_oldest_message_high = {
      name                = "runs-high-oldest-message"
      description         = "A high-lane run message has waited more than ${var.queue_age_alarm_seconds} s in ${aws_sqs_queue.runs["high"].name}: executors are missing, stuck or too few."
      metric              = { namespace = "AWS/SQS", metric_name = "ApproximateAgeOfOldestMessage", dimensions = { QueueName = aws_sqs_queue.runs["high"].name } }
      period              = 60
      evaluation_periods  = 5
      datapoints_to_alarm = 5
      threshold           = var.queue_age_alarm_seconds
    }

    queue_oldest_message_low = {
      name                = "runs-low-oldest-message"
      description         = "A low-lane run message has waited more than ${var.queue_age_alarm_seconds} s in ${aws_sqs_queue.runs["low"].name}: executors are missing, stuck or too few."
      metric              = { namespace = "AWS/SQS", metric_name = "ApproximateAgeOfOldestMessage", dimensions = { QueueName = aws_sqs_queue.runs["low"].name } }
      period              = 60
      evaluation_periods  = 5
      datapoints_to_alarm = 5
      threshold           = var.queue_age_alarm_seconds
    }

    # The meters below are core's (core/.../metrics/Meters.java), published as Embedded Metric Format lines by the
    # executors and the sweeper: namespace Punctual, dimension Prefix and the meter's tags (state, lane).
    # infra-tests' MetricsContractTest fails when a name here is not one the code records.
    # Start lateness: how late first attempts were let start after their due time (CloudWatch has every value).
    firing_lateness = {
      name               = "firing-lateness-p99"
      description        = "p99 start lateness of runs over 5 minutes exceeds ${var.firing_lateness_alarm_ms} ms: runs start late."
      metric             = { namespace = "Punctual", metric_name = "punctual.start.lateness", dimensions = { Prefix = var.name_prefix } }
      statistic          = null
      extended_statistic = "p99"
      threshold          = var.firing_lateness_alarm_ms
    }

    dead_runs = {
      name        = "runs-dead"
      description = "Runs ended DEAD (attempts used up, refused, or past maxRunAge): GET /v1/runs?state=DEAD lists them."
      metric      = { namespace = "Punctual", metric_name = "punctual.runs", dimensions = { Prefix = var.name_prefix, state = "DEAD" } }
      statistic   = "Sum"
    }

    dead_letters = {
      name        = "runs-dead-lettered"
      description = "The sweeper made runs DEAD because SQS dead-lettered their messages after 25 receives."
      metric      = { namespace = "Punctual", metric_name = "punctual.dead.letters", dimensions = { Prefix = var.name_prefix } }
      statistic   = "Sum"
    }

    # Claims lose normally (a duplicate delivery, a run finished meanwhile); many mean executors fight over runs.
    claim_conflicts = {
      name        = "claim-conflicts"
      description = "More than ${var.claim_conflicts_alarm_count} claims lost their conditional write in 5 minutes: duplicate deliveries or executors racing."
      metric      = { namespace = "Punctual", metric_name = "punctual.claim.conflicts", dimensions = { Prefix = var.name_prefix } }
      statistic   = "Sum"
      threshold   = var.claim_conflicts_alarm_count
    }

    retries = {
      name        = "retries"
      description = "More than ${var.retries_alarm_count} failed attempts were retried in 5 minutes: binaries are failing."
      metric      = { namespace = "Punctual", metric_name = "punctual.retries", dimensions = { Prefix = var.name_prefix } }
      statistic   = "Sum"
      threshold   = var.retries_alarm_count
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

# Every run slot of the fleet taken for slots_full_alarm_minutes minutes in a row: runs wait for a slot (and start
# late). Busy over total slots, each averaged over the executors' once-a-minute samples.
resource "aws_cloudwatch_metric_alarm" "slots_full" {
  alarm_name          = "${var.name_prefix}-executor-slots-full"
  alarm_description   = "Every executor run slot has been busy for ${var.slots_full_alarm_minutes} minutes: add executors (executor_max_count) or slots (executor_concurrency)."
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  evaluation_periods  = var.slots_full_alarm_minutes
  datapoints_to_alarm = var.slots_full_alarm_minutes
  treat_missing_data  = "notBreaching"

  metric_query {
    id          = "full"
    expression  = "busy / slots"
    label       = "busy slots / slots"
    return_data = true
  }

  metric_query {
    id = "busy"
    metric {
      namespace   = "Punctual"
      metric_name = "punctual.executor.slots.busy"
      dimensions  = { Prefix = var.name_prefix }
      period      = 60
      stat        = "Average"
    }
  }

  metric_query {
    id = "slots"
    metric {
      namespace   = "Punctual"
      metric_name = "punctual.executor.slots"
      dimensions  = { Prefix = var.name_prefix }
      period      = 60
      stat        = "Average"
    }
  }

  alarm_actions = local.alarm_actions
  ok_actions    = local.alarm_actions

  tags = var.tags
}
