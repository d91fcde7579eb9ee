output "api_url" {
  description = "Base URL of the API: the HTTP API when use_http_api, otherwise the api function URL."
  value       = module.punctual.api_url
}

output "table_names" {
  description = "DynamoDB table names."
  value       = module.punctual.table_names
}

output "queue_url" {
  description = "URL of the normal lane's run queue."
  value       = module.punctual.queue_url
}

output "dlq_url" {
  description = "URL of the normal lane's run dead-letter queue."
  value       = module.punctual.dlq_url
}

output "queue_urls" {
  description = "URL of each lane's run queue (high, normal, low)."
  value       = module.punctual.queue_urls
}

output "bucket_name" {
  description = "Name of the artifacts bucket."
  value       = module.punctual.bucket_name
}

# init.sh writes this to localstack/executor.env for the executor container (docker compose profile "executor").
output "executor_env_file" {
  description = "The executor's environment as KEY=value lines."
  value       = join("\n", [for name, value in module.punctual.executor_environment : "${name}=${value}"])
}
