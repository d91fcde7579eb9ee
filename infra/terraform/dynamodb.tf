# The four tables of core/.../infra/Resources.java: names, keys, indexes and TTL must stay exactly as the code
# defines them (infra-tests checks it). Every key is a string.

resource "aws_dynamodb_table" "jobs" {
  name                        = "${var.name_prefix}-jobs"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "jobId"
  deletion_protection_enabled = var.table_deletion_protection

  attribute {
    name = "jobId"
    type = "S"
  }

  attribute {
    name = "owner"
    type = "S"
  }

  attribute {
    name = "ownerSort"
    type = "S"
  }

  # Listing an owner's jobs, oldest first (ownerSort = createdAt#jobId).
  global_secondary_index {
    name            = "byOwner"
    hash_key        = "owner"
    range_key       = "ownerSort"
    projection_type = "ALL"
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}

resource "aws_dynamodb_table" "runs" {
  name                        = "${var.name_prefix}-runs"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "jobId"
  range_key                   = "runId"
  deletion_protection_enabled = var.table_deletion_protection

  attribute {
    name = "jobId"
    type = "S"
  }

  attribute {
    name = "runId"
    type = "S"
  }

  attribute {
    name = "dueShard"
    type = "S"
  }

  attribute {
    name = "dueSort"
    type = "S"
  }

  attribute {
    name = "ownerState"
    type = "S"
  }

  attribute {
    name = "finishedSort"
    type = "S"
  }

  # The sparse due index the sweeper reads: one partition per minute bucket and write shard.
  global_secondary_index {
    name            = "byDue"
    hash_key        = "dueShard"
    range_key       = "dueSort"
    projection_type = "ALL"
  }

  # The sparse dead-letter index: only DEAD runs carry ownerState (<owner>#DEAD) and finishedSort.
  global_secondary_index {
    name            = "byOwnerState"
    hash_key        = "ownerState"
    range_key       = "finishedSort"
    projection_type = "ALL"
  }

  # Finished runs (SUCCEEDED, DEAD, CANCELLED) expire after punctual.retention.
  ttl {
    attribute_name = "expiresAt"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}

resource "aws_dynamodb_table" "binaries" {
  name                        = "${var.name_prefix}-binaries"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "binaryId"
  deletion_protection_enabled = var.table_deletion_protection

  attribute {
    name = "binaryId"
    type = "S"
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}

resource "aws_dynamodb_table" "sweeps" {
  name                        = "${var.name_prefix}-sweeps"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "name"
  deletion_protection_enabled = var.table_deletion_protection

  attribute {
    name = "name"
    type = "S"
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}
