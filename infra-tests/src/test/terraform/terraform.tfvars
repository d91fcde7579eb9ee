# What every *.tftest.hcl here gives the module (terraform test reads this file from its tests directory);
# api_zip and sweeper_zip come from the command line (any existing file).
auth                         = "iam"
executor_image               = "123456789012.dkr.ecr.us-east-1.amazonaws.com/punctual-executor:1"
vpc_id                       = "vpc-1"
private_subnet_ids           = ["subnet-1", "subnet-2"]
vpc_endpoint_route_table_ids = ["rtb-1"]
