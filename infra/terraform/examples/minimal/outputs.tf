output "api_url" {
  description = "Base URL of the HTTP API."
  value       = module.punctual.api_url
}

output "table_names" {
  description = "DynamoDB table names."
  value       = module.punctual.table_names
}

output "queue_url" {
  description = "URL of the run queue."
  value       = module.punctual.queue_url
}

output "dlq_url" {
  description = "URL of the run dead-letter queue."
  value       = module.punctual.dlq_url
}

output "bucket_name" {
  description = "Name of the artifacts bucket."
  value       = module.punctual.bucket_name
}
