# The smallest real deployment: an existing VPC's private subnets (with a NAT gateway or VPC endpoints for
# DynamoDB, SQS, S3, ECR and CloudWatch Logs), an executor image pushed to ECR, and an OpenID Connect issuer
# (e.g. a Cognito user pool) whose JWTs every API call must carry.

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

  # Every route requires a JWT from this issuer for one of these audiences; the tenant is the token's iss + sub.
  # (auth = "iam" instead: SigV4-signed calls, no issuer needed.)
  auth         = "jwt"
  jwt_issuer   = var.jwt_issuer
  jwt_audience = var.jwt_audience

  executor_image     = var.executor_image
  vpc_id             = var.vpc_id
  private_subnet_ids = var.private_subnet_ids

  alarm_sns_topic_arn = var.alarm_sns_topic_arn
}
