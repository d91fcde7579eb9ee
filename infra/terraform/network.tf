# The executor tasks' network: their security group, whose egress follows run_egress, and the VPC endpoints of the
# services the executor calls. A user binary shares its task's network (PUNCTUAL_SANDBOX_NETWORK = "shared": a
# namespace of its own needs CAP_SYS_ADMIN, which Fargate cannot add), so this is also everything a run can reach.
# The Lambdas are not in the VPC and use none of it. Skipped with create_executor_service = false.

locals {
  # Without a VPC the executor security group's precondition says what is missing, rather than every endpoint.
  create_vpc_endpoints = var.create_executor_service && var.create_vpc_endpoints && var.vpc_id != null

  # The services the executor's tasks call, and how the VPC reaches each privately. On Fargate (platform 1.4+) the
  # image pull (ECR API for the token, ECR Docker for the manifests, S3 for the layers) and the awslogs driver
  # (CloudWatch Logs) also go through the task's network interface, so through its security group.
  vpc_endpoint_types = {
    s3        = "Gateway"
    dynamodb  = "Gateway"
    sqs       = "Interface"
    logs      = "Interface"
    "ecr.api" = "Interface"
    "ecr.dkr" = "Interface"
    # Run outcomes published on the runs bus (run_events).
    events = "Interface"
  }
  gateway_endpoint_types = { for service, type in local.vpc_endpoint_types : service => type if type == "Gateway" }

  # Security groups of the interface endpoints the executor may reach: this module's, or the VPC's own.
  interface_endpoint_security_group_count = local.create_vpc_endpoints ? 1 : length(var.vpc_endpoint_security_group_ids)
  interface_endpoint_security_group_ids = concat(
    aws_security_group.vpc_endpoints[*].id,
    local.create_vpc_endpoints ? [] : var.vpc_endpoint_security_group_ids,
  )
}

resource "aws_security_group" "executor" {
  count = var.create_executor_service ? 1 : 0

  name_prefix = "${var.name_prefix}-executor-"
  description = "Punctual executor tasks: nothing inbound, HTTPS outbound only"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${var.name_prefix}-executor" })

  lifecycle {
    create_before_destroy = true

    precondition {
      condition     = var.vpc_id != null && length(var.private_subnet_ids) > 0
      error_message = "vpc_id and private_subnet_ids are required when create_executor_service is true."
    }

    precondition {
      condition     = !var.create_vpc_endpoints || length(var.vpc_endpoint_route_table_ids) > 0
      error_message = "vpc_endpoint_route_table_ids is required with create_vpc_endpoints: the S3 and DynamoDB gateway endpoints are routes in the route tables of private_subnet_ids. (If the VPC has its endpoints already, set create_vpc_endpoints = false.)"
    }

    precondition {
      condition     = var.create_vpc_endpoints || var.run_egress != "aws-endpoints" || length(var.vpc_endpoint_security_group_ids) > 0
      error_message = "vpc_endpoint_security_group_ids is required with create_vpc_endpoints = false and run_egress = \"aws-endpoints\": the security groups of the VPC's SQS, CloudWatch Logs, EventBridge and ECR interface endpoints, the only HTTPS the executor may then reach besides S3 and DynamoDB."
    }

    precondition {
      condition     = var.run_egress == "internet-https" || !var.executor_assign_public_ip
      error_message = "executor_assign_public_ip is for reaching the internet without a NAT gateway, and run_egress = \"aws-endpoints\" allows no internet: set executor_assign_public_ip = false (the endpoints need no public IP), or choose run_egress = \"internet-https\"."
    }
  }
}

# S3 and DynamoDB on 443, at their regional address ranges (AWS-managed prefix lists), which their gateway
# endpoints route to. Needed by every run_egress. DNS through the VPC resolver is not subject to security groups.
resource "aws_vpc_security_group_egress_rule" "executor_gateway_endpoints" {
  for_each = var.create_executor_service ? local.gateway_endpoint_types : {}

  security_group_id = aws_security_group.executor[0].id
  description       = "HTTPS to ${each.key} (gateway endpoint)"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  prefix_list_id    = data.aws_prefix_list.gateway[each.key].id

  tags = var.tags
}

# SQS, CloudWatch Logs, EventBridge and ECR on 443, at their interface endpoints only.
resource "aws_vpc_security_group_egress_rule" "executor_interface_endpoints" {
  count = var.create_executor_service ? local.interface_endpoint_security_group_count : 0

  security_group_id            = aws_security_group.executor[0].id
  description                  = "HTTPS to the SQS, CloudWatch Logs, EventBridge and ECR interface endpoints"
  ip_protocol                  = "tcp"
  from_port                    = 443
  to_port                      = 443
  referenced_security_group_id = local.interface_endpoint_security_group_ids[count.index]

  tags = var.tags
}

# run_egress = "internet-https" only: HTTPS to any address (through the subnets' NAT gateway or a public IP), for
# runs that call services outside this VPC's endpoints. Other ports stay closed either way.
resource "aws_vpc_security_group_egress_rule" "executor_https" {
  count = var.create_executor_service && var.run_egress == "internet-https" ? 1 : 0

  security_group_id = aws_security_group.executor[0].id
  description       = "HTTPS to any address (run_egress = internet-https)"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"

  tags = var.tags
}

# This partition's and region's name of each service (e.g. com.amazonaws.us-east-1.sqs).
data "aws_vpc_endpoint_service" "this" {
  for_each = var.create_executor_service ? local.vpc_endpoint_types : {}

  service      = each.key
  service_type = each.value
}

data "aws_prefix_list" "gateway" {
  for_each = var.create_executor_service ? local.gateway_endpoint_types : {}

  name = data.aws_vpc_endpoint_service.this[each.key].service_name
}

resource "aws_vpc_endpoint" "this" {
  for_each = local.create_vpc_endpoints ? local.vpc_endpoint_types : {}

  vpc_id            = var.vpc_id
  service_name      = data.aws_vpc_endpoint_service.this[each.key].service_name
  vpc_endpoint_type = each.value

  # Gateway: routes in the executor subnets' route tables. Interface: a network interface per subnet (one per
  # Availability Zone), answering the service's usual DNS name inside the VPC. Default (full access) policies: a
  # binary holding credentials of its own may use these services with them, as through a NAT gateway.
  route_table_ids     = each.value == "Gateway" ? var.vpc_endpoint_route_table_ids : null
  subnet_ids          = each.value == "Interface" ? var.private_subnet_ids : null
  security_group_ids  = each.value == "Interface" ? aws_security_group.vpc_endpoints[*].id : null
  private_dns_enabled = each.value == "Interface" ? true : null

  tags = merge(var.tags, { Name = "${var.name_prefix}-${each.key}" })
}

# The interface endpoints admit HTTPS from the whole VPC, not only from the executor: private DNS sends every
# workload of the VPC that calls these services to them.
resource "aws_security_group" "vpc_endpoints" {
  count = local.create_vpc_endpoints ? 1 : 0

  name_prefix = "${var.name_prefix}-endpoints-"
  description = "Punctual VPC interface endpoints: HTTPS from the VPC"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${var.name_prefix}-endpoints" })

  lifecycle {
    create_before_destroy = true
  }
}

data "aws_vpc" "executor" {
  count = local.create_vpc_endpoints ? 1 : 0

  id = var.vpc_id
}

resource "aws_vpc_security_group_ingress_rule" "vpc_endpoints" {
  for_each = toset(local.create_vpc_endpoints ? data.aws_vpc.executor[0].cidr_block_associations[*].cidr_block : [])

  security_group_id = aws_security_group.vpc_endpoints[0].id
  description       = "HTTPS from the VPC (${each.key})"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = each.key

  tags = var.tags
}
