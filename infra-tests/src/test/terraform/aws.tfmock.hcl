# The mocked AWS provider of every *.tftest.hcl here (their mock_provider "aws" names this directory as its source):
# what AWS would answer, where the module or an assertion needs it.

mock_data "aws_caller_identity" {
  defaults = { account_id = "123456789012" }
}

mock_data "aws_region" {
  defaults = { name = "us-east-1" }
}

mock_data "aws_partition" {
  defaults = { partition = "aws" }
}

# Two CIDR blocks: the interface endpoints' security group admits HTTPS from each.
mock_data "aws_vpc" {
  defaults = {
    cidr_block_associations = [
      { cidr_block = "10.0.0.0/16", association_id = "vpc-cidr-assoc-1", state = "associated" },
      { cidr_block = "10.1.0.0/16", association_id = "vpc-cidr-assoc-2", state = "associated" },
    ]
  }
}

mock_data "aws_iam_policy_document" {
  defaults = { json = "{\"Version\":\"2012-10-17\",\"Statement\":[]}" }
}

# Only what the provider checks is an ARN; every other computed value may stay random.
mock_resource "aws_apigatewayv2_api" {
  defaults = { execution_arn = "arn:aws:execute-api:us-east-1:123456789012:abc" }
}

mock_resource "aws_lambda_alias" {
  defaults = { arn = "arn:aws:lambda:us-east-1:123456789012:function:f:live" }
}

mock_resource "aws_cloudwatch_event_rule" {
  defaults = { arn = "arn:aws:events:us-east-1:123456789012:rule/punctual-sweep" }
}

mock_resource "aws_cloudwatch_log_group" {
  defaults = { arn = "arn:aws:logs:us-east-1:123456789012:log-group:punctual" }
}

mock_resource "aws_iam_role" {
  defaults = { arn = "arn:aws:iam::123456789012:role/punctual" }
}

# Every queue's, unless a test overrides it (lanes.tftest.hcl gives each lane's queues their own).
mock_resource "aws_sqs_queue" {
  defaults = { arn = "arn:aws:sqs:us-east-1:123456789012:punctual-sweeper-failures" }
}
