output "api_url" {
  description = "Base URL of the HTTP API (or of the api function URL when only that is created)."
  value = (
    var.create_http_api ? aws_apigatewayv2_api.this[0].api_endpoint :
    var.create_api_function_url ? aws_lambda_function_url.api[0].function_url : null
  )
}

output "api_execution_arn" {
  description = "Execution ARN of the HTTP API: with auth = \"iam\", grant callers execute-api:Invoke on \"<this>/*\"."
  value       = try(aws_apigatewayv2_api.this[0].execution_arn, null)
}

output "api_function_url" {
  description = "The api Lambda's function URL, when create_api_function_url."
  value       = try(aws_lambda_function_url.api[0].function_url, null)
}

output "table_names" {
  description = "DynamoDB table names, by role."
  value       = { for role, table in aws_dynamodb_table.this : role => table.name }
}

output "table_arns" {
  description = "DynamoDB table ARNs, by role."
  value       = { for role, table in aws_dynamodb_table.this : role => table.arn }
}

output "queue_url" {
  description = "URL of the normal lane's run queue (PUNCTUAL_QUEUE_URL; the other lanes' are it with -high or -low appended)."
  value       = aws_sqs_queue.runs["normal"].url
}

output "queue_arn" {
  description = "ARN of the normal lane's run queue."
  value       = aws_sqs_queue.runs["normal"].arn
}

output "dlq_url" {
  description = "URL of the normal lane's run dead-letter queue."
  value       = aws_sqs_queue.dlq["normal"].url
}

output "dlq_arn" {
  description = "ARN of the normal lane's run dead-letter queue."
  value       = aws_sqs_queue.dlq["normal"].arn
}

output "queue_urls" {
  description = "URL of each lane's run queue (high, normal, low)."
  value       = { for lane, queue in aws_sqs_queue.runs : lane => queue.url }
}

output "queue_arns" {
  description = "ARN of each lane's run queue (high, normal, low)."
  value       = { for lane, queue in aws_sqs_queue.runs : lane => queue.arn }
}

output "dlq_urls" {
  description = "URL of each lane's run dead-letter queue (high, normal, low)."
  value       = { for lane, queue in aws_sqs_queue.dlq : lane => queue.url }
}

output "dlq_arns" {
  description = "ARN of each lane's run dead-letter queue (high, normal, low)."
  value       = { for lane, queue in aws_sqs_queue.dlq : lane => queue.arn }
}

output "sweeper_failures_queue_url" {
  description = "URL of the queue that receives failed sweeper invocations."
  value       = aws_sqs_queue.sweeper_failures.url
}

output "bucket_name" {
  description = "Name of the artifacts bucket (PUNCTUAL_BUCKET)."
  value       = aws_s3_bucket.artifacts.id
}

output "bucket_arn" {
  description = "ARN of the artifacts bucket."
  value       = aws_s3_bucket.artifacts.arn
}

output "api_function_name" {
  description = "Name of the api Lambda."
  value       = aws_lambda_function.this["api"].function_name
}

output "sweeper_function_name" {
  description = "Name of the sweeper Lambda."
  value       = aws_lambda_function.this["sweeper"].function_name
}

output "api_role_arn" {
  description = "ARN of the api Lambda's role."
  value       = aws_iam_role.this["api"].arn
}

output "sweeper_role_arn" {
  description = "ARN of the sweeper Lambda's role."
  value       = aws_iam_role.this["sweeper"].arn
}

output "executor_task_role_arn" {
  description = "ARN of the executor's task role (also usable by executors run outside this module's ECS service)."
  value       = aws_iam_role.this["executor-task"].arn
}

output "executor_execution_role_arn" {
  description = "ARN of the role ECS uses to pull the executor image and ship its logs."
  value       = try(aws_iam_role.this["executor-execution"].arn, null)
}

output "ecs_cluster_name" {
  description = "Name of the executor's ECS cluster."
  value       = try(aws_ecs_cluster.this[0].name, null)
}

output "executor_service_name" {
  description = "Name of the executor's ECS service."
  value       = try(aws_ecs_service.executor[0].name, null)
}

output "executor_security_group_id" {
  description = "Security group of the executor tasks."
  value       = try(aws_security_group.executor[0].id, null)
}

output "executor_environment" {
  description = "The environment the executor container gets, to run an executor elsewhere against this deployment (its directories are those of the executor images' volume, /var/lib/punctual)."
  value       = local.executor_environment
}

output "vpc_endpoint_ids" {
  description = "The VPC endpoints the module created for the executor (s3, dynamodb, sqs, logs, ecr.api, ecr.dkr → id); empty with create_vpc_endpoints = false."
  value       = { for service, endpoint in aws_vpc_endpoint.this : service => endpoint.id }
}

output "vpc_endpoint_security_group_id" {
  description = "Security group of the interface endpoints the module created (HTTPS from the VPC)."
  value       = try(aws_security_group.vpc_endpoints[0].id, null)
}

output "run_events_bus_name" {
  description = "The EventBridge bus run outcomes are published on (with run_events): put your rules on it, matching source \"punctual\" and detail-type \"Punctual Run State Change\" (or \"Punctual Job Overdue\": dead-man alerts)."
  value       = aws_cloudwatch_event_bus.runs.name
}

output "run_events_bus_arn" {
  description = "ARN of the run events bus."
  value       = aws_cloudwatch_event_bus.runs.arn
}

output "dashboard_url" {
  description = "The web dashboard (sign in with a token of var.jwt_issuer), when var.dashboard and the HTTP API are on."
  value       = var.create_http_api && var.dashboard ? "${aws_apigatewayv2_api.this[0].api_endpoint}/ui/" : null
}
