# One CloudWatch dashboard on the meters the executors and the sweeper publish (namespace Punctual, dimension Prefix;
# core/.../metrics/Meters.java names them) beside the queues' own SQS metrics. infra-tests' MetricsContractTest fails
# when a name here is not one the code records.

locals {
  # punctual.queue.messages, which the sweeper samples for each lane once a sweep: a widget per state, a line per
  # lane, so that the lanes' backlogs compare at a glance. CloudWatch shows a metric only when every dimension the
  # sweeper emits is named: Prefix, lane and state.
  queue_states = [
    { state = "visible", title = "Run messages waiting (visible), by lane" },
    { state = "delayed", title = "Run messages delayed (runs not yet due), by lane" },
    { state = "in_flight", title = "Run messages in flight (received, not yet deleted), by lane" },
  ]

  queue_widgets = [for q in local.queue_states : {
    title   = q.title
    stat    = "Maximum"
    metrics = [for lane in keys(local.run_lanes) : ["Punctual", "punctual.queue.messages", "Prefix", var.name_prefix, "lane", lane, "state", q.state, { label = lane }]]
  }]

  dashboard_widgets = concat([
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
      title = "Dead-letter queues and dead-lettered runs"
      stat  = "Maximum"
      metrics = concat(
        [for lane, queue in aws_sqs_queue.dlq : ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", queue.name, { label = "${lane} lane's DLQ messages" }]],
        [["Punctual", "punctual.dead.letters", "Prefix", var.name_prefix, { stat = "Sum", label = "runs made DEAD by the sweeper" }]],
      )
    },
    {
      title = "Retries and claim conflicts (per minute)"
      stat  = "Sum"
      metrics = [
        ["Punctual", "punctual.retries", "Prefix", var.name_prefix, { label = "retries" }],
        ["Punctual", "punctual.claim.conflicts", "Prefix", var.name_prefix, { label = "claim conflicts" }],
      ]
    },
  ], local.queue_widgets)
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
