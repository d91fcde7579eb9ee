#!/usr/bin/env bash
# How long the `punctual` command takes, as a user calls it: `bench/cli-timing.sh [RUNS] [-- ARGS...]` runs
# `bin/punctual ARGS` (default: `job list`) RUNS times (default 10) against the API it is pointed at (start one with
# bin/run-local first), after one call that builds the command and its class-data archive, and prints a Markdown
# table of wall-clock times. Issue 37 asks `job list` to answer in 0.5 s or less (the median of ten). Never part of
# bin/test: a timing is this machine's, at this load, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10
if [ "${1:-}" != "" ] && [ "${1:-}" != "--" ]; then runs=$1; shift; fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(job list)
if ! bin/punctual "${args[@]}" > /dev/null; then
  echo "ERROR: bin/punctual ${args[*]} failed: is the API up (bin/run-local)?" >&2
  exit 1
fi
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  bin/punctual "${args[@]}" > /dev/null
  times+=($(( ($(date +%s%N) - start) / 1000000 )))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
pick() { echo "$sorted" | sed -n "$1p"; }
median=$(( ( $(pick $(( (runs + 1) / 2 ))) + $(pick $(( runs / 2 + 1 ))) ) / 2 ))
echo "| command | runs | median | p90 | min | max | load (1 min) | commit |"
echo "|---|--:|--:|--:|--:|--:|--:|---|"
echo "| \`punctual ${args[*]}\` | $runs | ${median} ms | $(pick $(( (runs * 9 + 9) / 10 ))) ms | $(pick 1) ms | $(pick "$runs") ms | $(cut -d' ' -f1 /proc/loadavg) | $(git rev-parse --short HEAD 2>/dev/null || echo unknown) |"
