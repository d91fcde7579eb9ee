# The smallest real deployment: an existing VPC's private subnets (with a NAT gateway or VPC endpoints for
# DynamoDB, SQS, S3, ECR and CloudWatch Logs) and an executor image pushed to ECR.

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Project = "punctual"
    }
  }
}

module "punctual" {
  source = "../.."

  name_prefix = var.name_prefix

  executor_image     = var.executor_image
  vpc_id             = var.vpc_id
  private_subnet_ids = var.private_subnet_ids

  alarm_sns_topic_arn = var.alarm_sns_topic_arn
}
