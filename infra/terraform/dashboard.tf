# One CloudWatch dashboard on the meters the executors and the sweeper publish (namespace Punctual, dimension Prefix;
# core/.../metrics/Meters.java names them) beside the queues' own SQS metrics. infra-tests' MetricsContractTest fails
# when a name here is not one the code records.

locals {
  dashboard_widgets = [
    {
      title   = "Runs by outcome (per minute)"
      stat    = "Sum"
      metrics = [for state in ["STARTED", "SUCCEEDED", "FAILED", "DEAD", "CANCELLED", "SKIPPED"] : ["Punctual", "punctual.runs", "Prefix", var.name_prefix, "state", state]]
    },
    {
      title = "Start lateness (ms, first attempts)"
      metrics = [
        ["Punctual", "punctual.start.lateness", "Prefix", var.name_prefix, { stat = "p50", label = "p50" }],
        ["Punctual", "punctual.start.lateness", "Prefix", var.name_prefix, { stat = "p99", label = "p99" }],
        ["Punctual", "punctual.start.lateness", "Prefix", var.name_prefix, { stat = "Maximum", label = "max" }],
      ]
    },
    {
      title = "Executor run slots (fleet)"
      stat  = "Sum"
      metrics = [
        ["Punctual", "punctual.executor.slots.busy", "Prefix", var.name_prefix, { label = "busy" }],
        ["Punctual", "punctual.executor.slots", "Prefix", var.name_prefix, { label = "slots" }],
      ]
    },
    {
      title   = "Run queue (sampled once a sweep)"
      stat    = "Maximum"
      metrics = [for state in ["visible", "delayed", "in_flight"] : ["Punctual", "punctual.queue.messages", "Prefix", var.name_prefix, "state", state]]
    },
    {
      title = "Dead-letter queue and dead-lettered runs"
      stat  = "Maximum"
      metrics = [
        ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", aws_sqs_queue.dlq.name, { label = "DLQ messages" }],
        ["Punctual", "punctual.dead.letters", "Prefix", var.name_prefix, { stat = "Sum", label = "runs made DEAD by the sweeper" }],
      ]
    },
    {
      title = "Retries and claim conflicts (per minute)"
      stat  = "Sum"
      metrics = [
        ["Punctual", "punctual.retries", "Prefix", var.name_prefix, { label = "retries" }],
        ["Punctual", "punctual.claim.conflicts", "Prefix", var.name_prefix, { label = "claim conflicts" }],
      ]
    },
  ]
}

resource "aws_cloudwatch_dashboard" "this" {
  count = var.create_dashboard ? 1 : 0

  dashboard_name = var.name_prefix
  dashboard_body = jsonencode({
    widgets = [for i, w in local.dashboard_widgets : {
      type   = "metric"
      x      = (i % 2) * 12
      y      = floor(i / 2) * 6
      width  = 12
      height = 6
      properties = {
        title   = w.title
        region  = local.region
        view    = "timeSeries"
        period  = 60
        stat    = try(w.stat, "Average")
        metrics = w.metrics
      }
    }]
  })
}
