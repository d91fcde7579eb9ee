output "api_url" {
  description = "Base URL of the HTTP API."
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
