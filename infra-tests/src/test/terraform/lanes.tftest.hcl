# The priority lanes' queues as the real AWS provider plans and applies them, against a mocked provider (no AWS
# account): infra-tests' ProviderMockTest copies infra/terraform, puts this file in its tests/ and runs
# `terraform test` when a local provider mirror is available. What the contract tests cannot tell from the files
# alone, Terraform evaluates here: the TLS-only policies (keyed by a merge of the queues), the executors' scaling
# metric math, the outputs and the dashboard's body.

# The mocks (aws.tfmock.hcl) and the variables (terraform.tfvars) of every test here are in the files beside this one,
# which ProviderMockTest puts in tests/ with it.
mock_provider "aws" {
  source = "./tests"
}

# Each lane's queues get ARNs of their own, so that an assertion can tell which queue a policy names.
override_resource {
  target = aws_sqs_queue.runs["high"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs-high" }
}

override_resource {
  target = aws_sqs_queue.runs["normal"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs" }
}

override_resource {
  target = aws_sqs_queue.runs["low"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs-low" }
}

override_resource {
  target = aws_sqs_queue.dlq["high"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs-high-dlq" }
}

override_resource {
  target = aws_sqs_queue.dlq["normal"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs-dlq" }
}

override_resource {
  target = aws_sqs_queue.dlq["low"]
  values = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-runs-low-dlq" }
}

run "every_lane_has_its_queues_each_policed_and_watched" {
  command = apply

  assert {
    condition = alltrue([
      { for lane, q in aws_sqs_queue.runs : lane => q.name } == { high = "punctual-runs-high", normal = "punctual-runs", low = "punctual-runs-low" },
      { for lane, q in aws_sqs_queue.dlq : lane => q.name } == { high = "punctual-runs-high-dlq", normal = "punctual-runs-dlq", low = "punctual-runs-low-dlq" },
    ])
    error_message = "The lanes' queues are not named as the code names them (core's Resources.runQueue)."
  }

  assert {
    condition = alltrue([for lane, q in aws_sqs_queue.runs : alltrue([
      jsondecode(q.redrive_policy).deadLetterTargetArn == aws_sqs_queue.dlq[lane].arn,
      jsondecode(q.redrive_policy).maxReceiveCount == 25,
      jsondecode(aws_sqs_queue_redrive_allow_policy.dlq[lane].redrive_allow_policy).sourceQueueArns == [q.arn],
      aws_sqs_queue_redrive_allow_policy.dlq[lane].queue_url == aws_sqs_queue.dlq[lane].id,
    ])])
    error_message = "Each lane's queue must redrive to its own dead-letter queue, which takes its messages only."
  }

  # Every queue of the module, the lanes' and the sweeper's failures, denies requests without TLS on itself.
  assert {
    condition = alltrue([for q in concat(values(aws_sqs_queue.runs), values(aws_sqs_queue.dlq), [aws_sqs_queue.sweeper_failures]) :
      length([for p in aws_sqs_queue_policy.tls_only : p if p.queue_url == q.id && jsondecode(p.policy).Statement[0].Effect == "Deny" && jsondecode(p.policy).Statement[0].Resource == q.arn && jsondecode(p.policy).Statement[0].Condition.Bool["aws:SecureTransport"] == "false"]) == 1
    ])
    error_message = "Every queue must have one TLS-only policy: ${jsonencode({ for k, p in aws_sqs_queue_policy.tls_only : k => p.queue_url })}"
  }

  assert {
    condition = alltrue([
      output.queue_url == aws_sqs_queue.runs["normal"].url,
      output.dlq_url == aws_sqs_queue.dlq["normal"].url,
      output.queue_urls == { for lane, q in aws_sqs_queue.runs : lane => q.url },
      output.queue_arns == { for lane, q in aws_sqs_queue.runs : lane => q.arn },
      output.dlq_urls == { for lane, q in aws_sqs_queue.dlq : lane => q.url },
      output.dlq_arns == { for lane, q in aws_sqs_queue.dlq : lane => q.arn },
      toset(keys(output.queue_urls)) == toset(["high", "normal", "low"]),
    ])
    error_message = "The outputs must give the normal lane's queues as before, and every lane's by lane."
  }

  assert {
    condition = alltrue([
      toset([for a in aws_cloudwatch_metric_alarm.this : a.dimensions.QueueName if a.metric_name == "ApproximateNumberOfMessagesVisible"]) == toset(values(aws_sqs_queue.dlq)[*].name),
      toset([for a in aws_cloudwatch_metric_alarm.this : a.dimensions.QueueName if a.metric_name == "ApproximateAgeOfOldestMessage"]) == toset(values(aws_sqs_queue.runs)[*].name),
      toset(flatten([for w in jsondecode(aws_cloudwatch_dashboard.this[0].dashboard_body).widgets : [for m in w.properties.metrics : m[3] if m[0] == "AWS/SQS"]])) == toset(values(aws_sqs_queue.dlq)[*].name),
    ])
    error_message = "Every lane's dead-letter queue and oldest message must be alarmed on, and every lane's dead-letter queue graphed."
  }

  # The executors scale on every lane's backlog: each lane's visible and in-flight messages, each FILLed with 0 so
  # that an idle lane (no metrics) leaves the sum defined.
  assert {
    condition = alltrue([
      toset(flatten([for m in aws_appautoscaling_policy.executor_runs_per_task[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metrics : [
        for s in m.metric_stat : [for metric in s.metric : "${metric.metric_name} ${one([for d in metric.dimensions : d.value if d.name == "QueueName"])}" if metric.namespace == "AWS/SQS"]
      ]])) == toset(flatten([for q in values(aws_sqs_queue.runs) : ["ApproximateNumberOfMessagesVisible ${q.name}", "ApproximateNumberOfMessagesNotVisible ${q.name}"]])),
      alltrue([for m in aws_appautoscaling_policy.executor_runs_per_task[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metrics :
        strcontains(one([for e in aws_appautoscaling_policy.executor_runs_per_task[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metrics : e.expression if e.return_data]), "FILL(${m.id}, 0)")
        if length(m.metric_stat) > 0
      ]),
    ])
    error_message = "The executors' scaling must sum every lane's visible and in-flight messages, each FILLed with 0."
  }
}
