# The smallest real deployment: an existing VPC's private subnets (the module adds the VPC endpoints of S3,
# DynamoDB, SQS, ECR and CloudWatch Logs; no NAT gateway needed), an executor image pushed to ECR, and an OpenID
# Connect issuer (e.g. a Cognito user pool) whose JWTs every API call must carry.

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

  # Runs reach only the VPC endpoints of the services the executor calls ("internet-https": also any HTTPS).
  run_egress                   = "aws-endpoints"
  vpc_endpoint_route_table_ids = var.private_route_table_ids

  alarm_sns_topic_arn = var.alarm_sns_topic_arn
}
