# The executor fleet on ECS Fargate: long-polls the run queue, runs user binaries, scales on runs per task.
# Everything here is skipped with create_executor_service = false (LocalStack); the task role is in iam.tf, the
# tasks' security group and VPC endpoints in network.tf.

locals {
  # The executor container's hardening, merged last into its definition so that nothing before it can loosen it.
  # infra-tests checks it against Docker's default capabilities and the images (executor/src/main/docker).
  executor_container_hardening = {
    # Root inside the container, so that the executor can give every binary a uid of its own (PUNCTUAL_SANDBOX):
    # a binary can then read neither the executor's environment (which holds the task role's credentials URI) nor
    # its memory or files. The binaries get no capabilities at all (setpriv --no-new-privs, a non-root uid).
    user = "0"

    # Nothing writes to the image; the one writable place is the task volume below.
    readonlyRootFilesystem = true

    mountPoints = [{ sourceVolume = "work", containerPath = "/var/lib/punctual", readOnly = false }]

    linuxParameters = {
      # An init process as PID 1 forwards SIGTERM to the JVM and reaps what user binaries leave behind.
      initProcessEnabled = true

      capabilities = {
        # Every capability of Docker's default set but the six the executor uses: CHOWN (give a run's directory to
        # its uid), DAC_OVERRIDE (inspect and remove other uids' run directories), FOWNER (set modes of files it
        # does not own), KILL (kill every process of a run's uid), SETUID and SETGID (become the run's uid and gid).
        # Dropped defaults rather than "drop ALL, add the six": Fargate accepts only SYS_PTRACE in `add` (ECS API
        # reference, KernelCapabilities: "Tasks launched on AWS Fargate only support adding the SYS_PTRACE kernel
        # capability"; with drop ALL the container gets exactly `add`), so the six could not be added back.
        drop = ["AUDIT_WRITE", "FSETID", "MKNOD", "NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETPCAP", "SYS_CHROOT"]
      }
    }

    # Stated rather than left to the platform. The executor lacks CAP_SYS_RESOURCE, so a run's own limits
    # (PUNCTUAL_LIMITS_*, set with prlimit) can be at most these hard limits. nofile: Fargate's documented default,
    # made explicit. nproc counts per uid: the executor's threads as root, each run's processes under its own uid.
    # core 0: a crashing binary leaves no core file on the task volume.
    ulimits = [
      { name = "nofile", softLimit = 65535, hardLimit = 65535 },
      { name = "nproc", softLimit = 16384, hardLimit = 16384 },
      { name = "core", softLimit = 0, hardLimit = 0 },
    ]
  }
}

resource "aws_cloudwatch_log_group" "executor" {
  count = var.create_executor_service ? 1 : 0

  name              = "/ecs/${var.name_prefix}-executor"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_ecs_cluster" "this" {
  count = var.create_executor_service ? 1 : 0

  name = var.name_prefix

  # The scaling policy below divides by ECS/ContainerInsights RunningTaskCount.
  setting {
    name  = "containerInsights"
    value = "enabled"
  }

  tags = var.tags
}

locals {
  # ECS replaces an executor whose pool stopped taking runs. There is no HTTP server to ask: the executor touches
  # healthy in its work directory every 10 s while its receiver is alive and not stuck in a receive
  # (ExecutorLifecycle.HEALTH_FILE, HEALTH_BEAT); 45 s without a touch (three beats missed) is unhealthy, three
  # checks in a row replace the task. Before the first touch (JVM start) startPeriod covers it.
  executor_health_check = {
    command     = ["CMD-SHELL", "test $(( $(date +%s) - $(stat -c %Y /var/lib/punctual/work/healthy) )) -lt 45"]
    interval    = 15
    timeout     = 5
    retries     = 3
    startPeriod = 60
  }
}

resource "aws_ecs_task_definition" "executor" {
  count = var.create_executor_service ? 1 : 0

  family                   = "${var.name_prefix}-executor"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = var.executor_cpu
  memory                   = var.executor_memory
  task_role_arn            = aws_iam_role.this["executor-task"].arn
  execution_role_arn       = aws_iam_role.this["executor-execution"].arn

  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = var.executor_cpu_architecture
  }

  dynamic "ephemeral_storage" {
    for_each = var.executor_ephemeral_storage_gib == null ? [] : [var.executor_ephemeral_storage_gib]

    content {
      size_in_gib = ephemeral_storage.value
    }
  }

  # The executor's binary cache, logs, run directories and JVM temporary files (/var/lib/punctual): a bind mount
  # without a host path, which Fargate puts on the task's ephemeral storage and removes with the task.
  volume {
    name = "work"
  }

  container_definitions = jsonencode([merge(
    {
      name      = "executor"
      image     = var.executor_image
      essential = true

      # Seconds between SIGTERM and SIGKILL (Fargate's maximum). On SIGTERM the executor stops receiving, lets
      # running binaries finish for the shutdown grace (30 s), kills and releases the rest for retry; a receive
      # already waiting can take the 5 s long poll. 120 >= 30 + 5, with margin for uploading logs.
      stopTimeout = 120

      healthCheck = local.executor_health_check

      environment = [for name, value in local.executor_environment : { name = name, value = value }]

      # One stdout line, one log event: the executor's Embedded Metric Format lines become the Punctual metrics
      # without any CloudWatch API call.
      logConfiguration = {
        logDriver = "awslogs"
        options = {
          "awslogs-group"         = aws_cloudwatch_log_group.executor[0].name
          "awslogs-region"        = local.region
          "awslogs-stream-prefix" = "executor"
        }
      }
    },
    local.executor_container_hardening,
  )])

  tags = var.tags

  lifecycle {
    precondition {
      condition     = var.executor_image != null
      error_message = "executor_image is required when create_executor_service is true."
    }

    precondition {
      condition     = local.shutdown_grace_seconds + 5 <= 120
      error_message = "shutdown_grace plus the 5 s long poll must fit in the task's 120 s stop timeout."
    }

    precondition {
      condition     = lookup(var.extra_environment, "PUNCTUAL_SANDBOX_NETWORK", "shared") != "none"
      error_message = "PUNCTUAL_SANDBOX_NETWORK = \"none\" (an empty network namespace per run) needs CAP_SYS_ADMIN, which a Fargate task cannot be given (only SYS_PTRACE can be added): every run would fail. Leave it \"shared\" and choose what runs reach with run_egress."
    }

    precondition {
      condition     = lookup(var.extra_environment, "PUNCTUAL_SANDBOX_DISK", "auto") != "filesystem"
      error_message = "PUNCTUAL_SANDBOX_DISK = \"filesystem\" (a filesystem of its own per run: a mount namespace and a loop device) needs CAP_SYS_ADMIN, which a Fargate task cannot be given (only SYS_PTRACE can be added): the executor would refuse to start. Leave it \"auto\": on Fargate, runs' disks are watched."
    }
  }
}

resource "aws_ecs_service" "executor" {
  count = var.create_executor_service ? 1 : 0

  name             = "${var.name_prefix}-executor"
  cluster          = aws_ecs_cluster.this[0].id
  task_definition  = aws_ecs_task_definition.executor[0].arn
  desired_count    = var.executor_min_tasks
  launch_type      = "FARGATE"
  platform_version = "LATEST"

  # A replaced task drains like any stopped one: its runs get the grace period, then are retried elsewhere.
  deployment_minimum_healthy_percent = 100
  deployment_maximum_percent         = 200

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  network_configuration {
    subnets          = var.private_subnet_ids
    security_groups  = [aws_security_group.executor[0].id]
    assign_public_ip = var.executor_assign_public_ip
  }

  enable_ecs_managed_tags = true
  propagate_tags          = "SERVICE"

  tags = var.tags

  # Tasks started before their egress and endpoints exist could not pull the image, and the circuit breaker would
  # roll the first deployment back.
  depends_on = [
    aws_vpc_endpoint.this,
    aws_vpc_security_group_egress_rule.executor_gateway_endpoints,
    aws_vpc_security_group_egress_rule.executor_interface_endpoints,
    aws_vpc_security_group_egress_rule.executor_https,
    aws_vpc_security_group_ingress_rule.vpc_endpoints,
  ]

  lifecycle {
    # Application Auto Scaling owns the task count.
    ignore_changes = [desired_count]
  }
}

resource "aws_appautoscaling_target" "executor" {
  count = var.create_executor_service ? 1 : 0

  service_namespace  = "ecs"
  resource_id        = "service/${aws_ecs_cluster.this[0].name}/${aws_ecs_service.executor[0].name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = var.executor_min_tasks
  max_capacity       = var.executor_max_tasks
}

# Runs per task: (visible + in-flight run messages, every lane's) / running tasks. Delayed messages (runs not yet
# due) are in neither count. In-flight messages are the runs executing now, so a busy fleet is not scaled in just
# because the queues are momentarily empty. Target at or under executor_concurrency.
locals {
  # The backlog's terms: a lane's visible and in-flight messages, each its own query (id <what>_<lane>). Each is
  # FILLed with 0 because a sum with a missing term has no value, which would leave the policy without data: SQS
  # publishes a queue's metrics only while it is active (any call within six hours; a lane nobody uses is not), and
  # documents the in-flight count as reported only while there are messages in flight.
  executor_backlog_metrics = flatten([for lane in keys(local.run_lanes) : [
    { id = "visible_${lane}", lane = lane, metric_name = "ApproximateNumberOfMessagesVisible", label = "Run messages waiting, ${lane} lane" },
    { id = "in_flight_${lane}", lane = lane, metric_name = "ApproximateNumberOfMessagesNotVisible", label = "Run messages received and not yet deleted, ${lane} lane" },
  ]])

  executor_backlog = "(${join(" + ", [for m in local.executor_backlog_metrics : "FILL(${m.id}, 0)"])})"
}

resource "aws_appautoscaling_policy" "executor_runs_per_task" {
  count = var.create_executor_service ? 1 : 0

  name               = "${var.name_prefix}-executor-runs-per-task"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.executor[0].service_namespace
  resource_id        = aws_appautoscaling_target.executor[0].resource_id
  scalable_dimension = aws_appautoscaling_target.executor[0].scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.executor_target_runs_per_task
    scale_in_cooldown  = var.executor_scale_in_cooldown
    scale_out_cooldown = var.executor_scale_out_cooldown

    customized_metric_specification {
      dynamic "metrics" {
        for_each = local.executor_backlog_metrics

        content {
          id          = metrics.value.id
          label       = metrics.value.label
          return_data = false

          metric_stat {
            stat = "Average"

            metric {
              namespace   = "AWS/SQS"
              metric_name = metrics.value.metric_name

              dimensions {
                name  = "QueueName"
                value = aws_sqs_queue.runs[metrics.value.lane].name
              }
            }
          }
        }
      }

      metrics {
        id          = "tasks"
        label       = "Running executor tasks"
        return_data = false

        metric_stat {
          stat = "Average"

          metric {
            namespace   = "ECS/ContainerInsights"
            metric_name = "RunningTaskCount"

            dimensions {
              name  = "ClusterName"
              value = aws_ecs_cluster.this[0].name
            }

            dimensions {
              name  = "ServiceName"
              value = aws_ecs_service.executor[0].name
            }
          }
        }
      }

      # With no task running, the whole backlog counts against one: scale-out from zero still happens.
      metrics {
        id          = "runs_per_task"
        label       = "Runs per executor task"
        expression  = "IF(FILL(tasks, 0) > 0, ${local.executor_backlog} / FILL(tasks, 0), ${local.executor_backlog})"
        return_data = true
      }
    }
  }
}
