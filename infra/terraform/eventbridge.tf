# The sweeper's timer: every minute (Settings.DEFAULT_SWEEP_PERIOD; the 2-minute lookahead must exceed it).

resource "aws_cloudwatch_event_rule" "sweep" {
  name                = "${var.name_prefix}-sweep"
  description         = "Punctual: queue runs due within the lookahead"
  schedule_expression = "rate(1 minute)"

  tags = var.tags
}

# One target per sweep worker, each invoking the sweeper with its share of the due index's shards (those equal to
# its number modulo var.sweep_workers; SweepHandler reads the input). A rule takes at most 5 targets.
resource "aws_cloudwatch_event_target" "sweep" {
  for_each = { for i in range(var.sweep_workers) : tostring(i) => i }

  rule      = aws_cloudwatch_event_rule.sweep.name
  target_id = each.value == 0 ? "sweeper" : "sweeper-${each.value}"
  arn       = aws_lambda_alias.live["sweeper"].arn
  input     = jsonencode({ worker = each.value, workers = var.sweep_workers })

  lifecycle {
    precondition {
      condition     = var.sweeper_reserved_concurrency >= var.sweep_workers
      error_message = "sweeper_reserved_concurrency must be at least sweep_workers, or some workers' sweeps are throttled every minute."
    }
  }
}

resource "aws_lambda_permission" "sweep" {
  statement_id  = "AllowEventBridgeSweep"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this["sweeper"].function_name
  qualifier     = aws_lambda_alias.live["sweeper"].name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.sweep.arn
}

# Run outcomes (SUCCEEDED, FAILED, DEAD, CANCELLED, SKIPPED), published by the executors and the sweeper as
# "Punctual Run State Change" events with source "punctual" (core/.../notify/RunNotice.java; schema in docs/events.md),
# and "Punctual Job Overdue" events of jobs that missed their expected success (notify/JobOverdue.java).
# A bus of its own, so that rules on it see only these and its policy can be given to whoever consumes them. It
# exists whether or not run_events publishes on it (an idle bus costs nothing).
resource "aws_cloudwatch_event_bus" "runs" {
  name = "${var.name_prefix}-runs"

  tags = var.tags
}

locals {
  # Only the components that publish (the API writes no outcome): punctual.events.bus-name.
  run_events_environment = var.run_events ? { PUNCTUAL_EVENTS_BUS_NAME = aws_cloudwatch_event_bus.runs.name } : {}
}
