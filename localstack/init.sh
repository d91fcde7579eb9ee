#!/usr/bin/env bash
# Deploys Punctual into the LocalStack of docker-compose.yml with terraform and infra/terraform/examples/localstack,
# then writes localstack/executor.env for the executor container. Needs terraform, Maven, a JDK >= 21 and curl.
# UNVERIFIED: written on a machine without Docker; never run against a LocalStack.
#
#   localstack/init.sh [--executor] [extra `terraform apply` arguments, e.g. -var use_http_api=true]
#
# --executor also builds the executor and starts it as the compose service "executor".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
endpoint="${LOCALSTACK_ENDPOINT:-http://localhost:4566}"

with_executor=false
if [ "${1:-}" = "--executor" ]; then
  with_executor=true
  shift
fi

echo "Waiting for LocalStack at $endpoint ..."
ready=false
for _ in $(seq 1 60); do
  if curl -fsS "$endpoint/_localstack/health" >/dev/null 2>&1; then
    ready=true
    break
  fi
  sleep 2
done
if ! $ready; then
  echo "ERROR: LocalStack is not answering at $endpoint. Start it: docker compose -f $here/docker-compose.yml up -d" >&2
  exit 1
fi

cd "$root"
. bin/jdk.sh
modules=api-function,sweeper-function
artifacts=(api-function/target/function.zip sweeper-function/target/function.zip)
if $with_executor; then
  modules="$modules,executor"
  artifacts+=(executor/target/quarkus-app/quarkus-run.jar)
fi
stale=false
for a in "${artifacts[@]}"; do
  if [ ! -f "$a" ] || [ -n "$(find pom.xml core wiring api api-function sweeper-function executor -newer "$a" \
      \( -name '*.java' -o -name '*.properties' -o -name pom.xml \) -print -quit)" ]; then
    stale=true
  fi
done
if $stale; then
  echo "Building $modules ..."
  mvn -B -q -ntp -pl "$modules" -am package -Dmaven.test.skip=true
fi

cd infra/terraform/examples/localstack
terraform init -input=false
terraform apply -input=false -auto-approve -var "localstack_endpoint=$endpoint" "$@"
terraform output -raw executor_env_file > "$here/executor.env"
echo "Punctual is deployed on LocalStack. API: $(terraform output -raw api_url)"
echo "The API has no authentication (auth = \"none\", every caller is tenant \"local\"): keep LocalStack on 127.0.0.1."
echo "Executor environment written to $here/executor.env"

if $with_executor; then
  docker compose -f "$here/docker-compose.yml" --profile executor up -d --build executor
  echo "Executor started: docker compose -f $here/docker-compose.yml logs -f executor"
fi
