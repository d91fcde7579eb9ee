variable "region" {
  description = "AWS region to deploy into."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix of every resource name (the code's punctual.prefix)."
  type        = string
  default     = "punctual"
}

variable "jwt_issuer" {
  description = "Issuer URL of the JWTs the API accepts, e.g. https://cognito-idp.us-east-1.amazonaws.com/us-east-1_XXXXXXXXX."
  type        = string

  validation {
    condition     = startswith(var.jwt_issuer, "https://")
    error_message = "jwt_issuer must be an https:// URL."
  }
}

variable "jwt_audience" {
  description = "Audiences (client ids) the API accepts tokens for, e.g. [\"1example23456789\"]."
  type        = list(string)

  validation {
    condition     = length(var.jwt_audience) > 0
    error_message = "jwt_audience needs at least one audience."
  }
}

variable "executor_image" {
  description = "The executor image, e.g. 123456789012.dkr.ecr.us-east-1.amazonaws.com/punctual-executor:0.1.0."
  type        = string
}

variable "vpc_id" {
  description = "VPC of the executor tasks."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets of that VPC for the executor tasks and the interface endpoints, one per Availability Zone."
  type        = list(string)
}

variable "private_route_table_ids" {
  description = "Route tables of those subnets, for the S3 and DynamoDB gateway endpoints."
  type        = list(string)
}

variable "alarm_sns_topic_arn" {
  description = "SNS topic for alarm notifications (optional)."
  type        = string
  default     = null
}
