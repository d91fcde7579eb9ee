# Lets `terraform plan` of a copy of infra/terraform run with the real provider and no AWS account: a provider
# that asks AWS nothing at start-up, and, instead of the data sources that would call AWS, the values they stood
# for when previous-layout.tfstate was made (the same as executor.tftest.hcl's mocks). infra-tests' PreviousLayout
# puts this file, previous-layout.tfvars and the state in the copy and plans with -refresh=false.
#
# previous-layout.tfstate is a deployment of infra/terraform as of commit b176da7 (each Lambda, role and role
# policy declared on its own), made offline: the module planned with these variables, the planned values written
# to the state with each value known only after apply filled in, repeated until that module planned no change.

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "offline"
  secret_key                  = "offline"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

locals {
  account_id = "123456789012"
}

data "aws_caller_identity" "current" {
  count = 0
}

data "aws_vpc_endpoint_service" "this" {
  for_each = {}
}

data "aws_prefix_list" "gateway" {
  for_each = {}
}

data "aws_vpc" "executor" {
  count = 0
}

resource "aws_vpc_endpoint" "this" {
  service_name = "com.amazonaws.us-east-1.${each.key}"
}

resource "aws_vpc_security_group_egress_rule" "executor_gateway_endpoints" {
  prefix_list_id = "pl-${each.key}"
}

resource "aws_vpc_security_group_ingress_rule" "vpc_endpoints" {
  for_each = toset(["10.0.0.0/16", "10.1.0.0/16"])
}
