# The sweeper's timer: every minute (Settings.DEFAULT_SWEEP_PERIOD; the 2-minute lookahead must exceed it).

resource "aws_cloudwatch_event_rule" "sweep" {
  name                = "${var.name_prefix}-sweep"
  description         = "Punctual: queue runs due within the lookahead"
  schedule_expression = "rate(1 minute)"

  tags = var.tags
}

resource "aws_cloudwatch_event_target" "sweep" {
  rule      = aws_cloudwatch_event_rule.sweep.name
  target_id = "sweeper"
  arn       = aws_lambda_alias.live["sweeper"].arn
}

resource "aws_lambda_permission" "sweep" {
  statement_id  = "AllowEventBridgeSweep"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this["sweeper"].function_name
  qualifier     = aws_lambda_alias.live["sweeper"].name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.sweep.arn
}
