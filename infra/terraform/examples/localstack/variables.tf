variable "localstack_endpoint" {
  description = "LocalStack's edge endpoint, as seen from where terraform runs."
  type        = string
  default     = "http://localhost:4566"
}

variable "region" {
  description = "Region LocalStack emulates."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix of every resource name (the code's punctual.prefix)."
  type        = string
  default     = "punctual"
}

variable "use_http_api" {
  description = "Also create the API Gateway HTTP API (needs a LocalStack plan that includes API Gateway v2)."
  type        = bool
  default     = false
}
