# The executor's task and network as the real AWS provider plans and applies them, against a mocked provider (no
# AWS account): infra-tests' ProviderMockTest copies infra/terraform, puts this file in its tests/ and runs
# `terraform test` when a local provider mirror is available. The mocks stand in for what AWS would answer.

# The mocks (aws.tfmock.hcl) and the variables (terraform.tfvars) of every test here are in the files beside this one,
# which ProviderMockTest puts in tests/ with it.
mock_provider "aws" {
  source = "./tests"
}

run "the_container_is_hardened_and_runs_reach_only_the_endpoints" {
  command = apply

  assert {
    condition = alltrue([
      jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].user == "0",
      jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].readonlyRootFilesystem,
      !can(jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].privileged),
      jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].linuxParameters.initProcessEnabled,
      toset(jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].linuxParameters.capabilities.drop) == toset(["AUDIT_WRITE", "FSETID", "MKNOD", "NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETPCAP", "SYS_CHROOT"]),
      !can(jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].linuxParameters.capabilities.add),
      toset([for u in jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].ulimits : u.name]) == toset(["nofile", "nproc", "core"]),
    ])
    error_message = "The executor container is not hardened as expected: ${aws_ecs_task_definition.executor[0].container_definitions}"
  }

  assert {
    condition = alltrue([
      length(jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].mountPoints) == 1,
      jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].mountPoints[0].containerPath == "/var/lib/punctual",
      jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].mountPoints[0].sourceVolume == one(aws_ecs_task_definition.executor[0].volume).name,
      one(aws_ecs_task_definition.executor[0].volume).host_path == null,
      { for e in jsondecode(aws_ecs_task_definition.executor[0].container_definitions)[0].environment : e.name => e.value if startswith(e.name, "PUNCTUAL_SANDBOX") || e.name == "PUNCTUAL_WORK_DIR" } == {
        PUNCTUAL_WORK_DIR    = "/var/lib/punctual/work"
        PUNCTUAL_SANDBOX     = "true"
        PUNCTUAL_SANDBOX_DIR = "/var/lib/punctual/sandbox"
      },
    ])
    error_message = "The executor's volume or directories are not as expected: ${aws_ecs_task_definition.executor[0].container_definitions}"
  }

  assert {
    condition     = toset(keys(aws_vpc_endpoint.this)) == toset(["s3", "dynamodb", "sqs", "logs", "ecr.api", "ecr.dkr", "events"])
    error_message = "Expected the seven VPC endpoints, got ${jsonencode(keys(aws_vpc_endpoint.this))}."
  }

  assert {
    condition = alltrue([
      length(aws_vpc_security_group_egress_rule.executor_https) == 0,
      length(aws_vpc_security_group_egress_rule.executor_gateway_endpoints) == 2,
      length(aws_vpc_security_group_egress_rule.executor_interface_endpoints) == 1,
      aws_vpc_security_group_egress_rule.executor_interface_endpoints[0].referenced_security_group_id == aws_security_group.vpc_endpoints[0].id,
      length(aws_vpc_security_group_ingress_rule.vpc_endpoints) == 2,
    ])
    error_message = "run_egress = \"aws-endpoints\" must allow HTTPS to the endpoints only."
  }
}

run "internet_https_adds_https_anywhere" {
  command = plan

  variables {
    run_egress = "internet-https"
  }

  assert {
    condition     = length(aws_vpc_security_group_egress_rule.executor_https) == 1 && aws_vpc_security_group_egress_rule.executor_https[0].cidr_ipv4 == "0.0.0.0/0"
    error_message = "run_egress = \"internet-https\" must allow HTTPS to any address."
  }
}

run "the_vpcs_own_endpoints" {
  command = apply

  variables {
    create_vpc_endpoints            = false
    vpc_endpoint_security_group_ids = ["sg-1", "sg-2"]
  }

  assert {
    condition = alltrue([
      length(aws_vpc_endpoint.this) == 0,
      length(aws_security_group.vpc_endpoints) == 0,
      [for r in aws_vpc_security_group_egress_rule.executor_interface_endpoints : r.referenced_security_group_id] == ["sg-1", "sg-2"],
    ])
    error_message = "With create_vpc_endpoints = false the executor must reach the given endpoint security groups."
  }
}

run "a_public_ip_without_internet_egress_is_refused" {
  command = plan

  variables {
    executor_assign_public_ip = true
  }

  expect_failures = [aws_security_group.executor]
}

run "endpoints_without_route_tables_are_refused" {
  command = plan

  variables {
    vpc_endpoint_route_table_ids = []
  }

  expect_failures = [aws_security_group.executor]
}

run "no_vpc_is_refused_by_one_precondition" {
  command = plan

  variables {
    vpc_id = null
  }

  expect_failures = [aws_security_group.executor]
}

run "a_network_namespace_per_run_is_refused_on_fargate" {
  command = plan

  variables {
    extra_environment = { PUNCTUAL_SANDBOX_NETWORK = "none" }
  }

  expect_failures = [aws_ecs_task_definition.executor]
}

run "a_filesystem_per_run_is_refused_on_fargate" {
  command = plan

  variables {
    extra_environment = { PUNCTUAL_SANDBOX_DISK = "filesystem" }
  }

  expect_failures = [aws_ecs_task_definition.executor]
}

run "the_executors_directories_cannot_be_moved" {
  command = plan

  variables {
    extra_environment = { PUNCTUAL_WORK_DIR = "/tmp/punctual" }
  }

  expect_failures = [var.extra_environment]
}
