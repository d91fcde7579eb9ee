terraform {
  required_version = ">= 1.5"

  required_providers {
    # A recent 5.x: metric math in aws_appautoscaling_policy target tracking came well after 5.0.
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.40"
    }
  }
}
