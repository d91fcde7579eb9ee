# The artifacts bucket: binaries under binaries/<owner-key>/sha256/<hex> (per owner, uploaded through presigned PUTs
# that sign the body's checksum) and run logs under logs/<job>/<run>/attempt-<n>.log, with the chunks of a running
# attempt's output beside it under logs/<job>/<run>/attempt-<n>/<end offset>. The chunks are never deleted: once the
# attempt's log is stored they are no longer read, and expire-run-logs below removes them with it.

resource "aws_s3_bucket" "artifacts" {
  bucket        = local.bucket_name
  force_destroy = var.force_destroy

  tags = var.tags
}

resource "aws_s3_bucket_ownership_controls" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_public_access_block" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_versioning" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = var.kms_key_arn == null ? "AES256" : "aws:kms"
      kms_master_key_id = var.kms_key_arn
    }
    bucket_key_enabled = var.kms_key_arn != null
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  rule {
    id     = "expire-run-logs"
    status = "Enabled"

    filter {
      prefix = "logs/"
    }

    expiration {
      days = var.log_retention_days
    }
  }

  rule {
    id     = "expire-noncurrent-versions"
    status = "Enabled"

    filter {}

    noncurrent_version_expiration {
      noncurrent_days = var.noncurrent_version_retention_days
    }

    expiration {
      expired_object_delete_marker = true
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 7
    }
  }

  # Lifecycle rules on a bucket whose versioning is still being enabled are rejected.
  depends_on = [aws_s3_bucket_versioning.artifacts]
}

# Deny anything but TLS (local.deny_insecure_transport, sqs.tf).
resource "aws_s3_bucket_policy" "artifacts" {
  bucket = aws_s3_bucket.artifacts.id

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [merge(local.deny_insecure_transport, {
      Action   = "s3:*"
      Resource = [aws_s3_bucket.artifacts.arn, "${aws_s3_bucket.artifacts.arn}/*"]
    })]
  })

  # A bucket policy put before the public access block exists can race with it.
  depends_on = [aws_s3_bucket_public_access_block.artifacts]
}

# The dashboard uploads a binary from the browser straight to its presigned URL, a cross-origin PUT from the API's
# origin. The presigned signature (which covers the body's checksum and length) still decides what is accepted.
resource "aws_s3_bucket_cors_configuration" "artifacts" {
  count = var.create_http_api && var.dashboard ? 1 : 0

  bucket = aws_s3_bucket.artifacts.id

  cors_rule {
    allowed_methods = ["PUT"]
    allowed_origins = [aws_apigatewayv2_api.this[0].api_endpoint]
    allowed_headers = ["content-type", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm", "x-amz-content-sha256"]
    expose_headers  = ["ETag"]
    max_age_seconds = 3600
  }
}
