# The four tables of core/.../infra/Resources.java: names, keys, indexes and TTL must stay exactly as the code
# defines them (infra-tests checks it). Every key is a string; every table is on-demand, with point-in-time
# recovery and server-side encryption.

locals {
  # By the suffix of each table's name: its keys, every attribute a key of it or of an index names (DynamoDB
  # declares no others), its indexes (name → keys and projection), and its TTL attribute, if any.
  dynamodb_tables = {
    jobs = {
      hash_key   = "jobId"
      range_key  = null
      attributes = ["jobId", "owner", "ownerSort"]
      # Listing an owner's jobs, oldest first (ownerSort = createdAt#jobId). Keys only: the listing reads the jobs
      # by key, and a job's dispatches (which change its pending run) cost the index nothing.
      indexes = { byOwner = { hash_key = "owner", range_key = "ownerSort", projection = "KEYS_ONLY" } }
      # Only idempotency keys (idem#…) carry expiresAt, 24 h after their first use; jobs never expire.
      ttl = ["expiresAt"]
    }

    runs = {
      hash_key   = "jobId"
      range_key  = "runId"
      attributes = ["jobId", "runId", "dueShard", "dueSort", "ownerState", "finishedSort", "ownerShard"]
      indexes = {
        # The sparse due index the sweeper reads: one partition per minute bucket and write shard. Keys only: a
        # run's claim, launch and heartbeats change no key of it, so they cost the index nothing.
        byDue = { hash_key = "dueShard", range_key = "dueSort", projection = "KEYS_ONLY" }
        # The sparse dead-letter index: only DEAD runs carry ownerState (<owner>#DEAD) and finishedSort.
        byOwnerState = { hash_key = "ownerState", range_key = "finishedSort", projection = "ALL" }
        # GET /v1/runs: an owner's runs across jobs, newest due first. ownerShard (<owner>#<0-7>, by job) spreads a
        # tenant's run creations over eight partitions. Keys only, on keys written once when a run is created.
        byOwner = { hash_key = "ownerShard", range_key = "runId", projection = "KEYS_ONLY" }
      }
      # Finished runs (SUCCEEDED, DEAD, CANCELLED) expire after punctual.retention.
      ttl = ["expiresAt"]
    }

    binaries = {
      hash_key   = "binaryId"
      range_key  = null
      attributes = ["binaryId", "owner", "createdAt"]
      # GET /v1/binaries: an owner's binaries, newest first. All attributes: a binary is written at most twice.
      indexes = { byOwner = { hash_key = "owner", range_key = "createdAt", projection = "ALL" } }
      ttl     = []
    }

    # The sweeper's watermark.
    sweeps = { hash_key = "name", range_key = null, attributes = ["name"], indexes = {}, ttl = [] }
  }
}

resource "aws_dynamodb_table" "this" {
  for_each = local.dynamodb_tables

  name                        = "${var.name_prefix}-${each.key}"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = each.value.hash_key
  range_key                   = each.value.range_key
  deletion_protection_enabled = var.table_deletion_protection

  dynamic "attribute" {
    for_each = each.value.attributes

    content {
      name = attribute.value
      type = "S"
    }
  }

  dynamic "global_secondary_index" {
    for_each = each.value.indexes

    content {
      name            = global_secondary_index.key
      hash_key        = global_secondary_index.value.hash_key
      range_key       = global_secondary_index.value.range_key
      projection_type = global_secondary_index.value.projection
    }
  }

  dynamic "ttl" {
    for_each = each.value.ttl

    content {
      attribute_name = ttl.value
      enabled        = true
    }
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}
