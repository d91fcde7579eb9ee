# The aws provider's version constraint is the module's own (../../versions.tf): Terraform applies it to this
# configuration too, so it is stated once.
terraform {
  required_version = ">= 1.5"
}
