#!/usr/bin/env bash
# Planner latency and training throughput of this tree against another commit's, alternating the two trees' processes
# each round (so both see the same load); the figures of docs/benchmarks.md, "Before and after". One line per run: the
# machine's load, the variant, then the `simdist bench` record.
#   BEFORE=329e22e ROUNDS=3 THREADS=1 bash benchmarks/speed_ab.sh plan    # MODEL, MP: the presets (paper-manipulation)
#   BEFORE=329e22e ROUNDS=3 THREADS=1 bash benchmarks/speed_ab.sh train   # MODEL: the preset
# plan: both trees' compiled planners (this tree's with MPPIConfig.cpu_bf16 at its default).
# train: BEFORE's default (eager fp32) and its compiled step, against this tree's paper-manipulation setting (compiled,
# bf16 autocast; on a CPU without bf16 matrix units the products are emulated, so run it where they exist).
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${BEFORE:-329e22e}; MODEL=${MODEL:-paper-manipulation}; MP=${MP:-paper-manipulation}
ROUNDS=${ROUNDS:-3}; export OMP_NUM_THREADS=${THREADS:-1}
OLD=$(mktemp -d); trap 'rm -rf "$OLD"' EXIT
git archive "$BEFORE" src | tar -x -C "$OLD"
load() { cut -d' ' -f1 /proc/loadavg; }
plan() {  # $1: src folder
  PYTHONPATH="$1" python -c "import json; from simdist.experiments.bench import bench_plan
print(json.dumps(bench_plan('$MODEL', '$MP', compile=True)))" 2>/dev/null | tail -1
}
train() {  # $1: src folder, then bench train's flags
  local src=$1; shift
  PYTHONPATH="$src" python -m simdist.cli bench train --preset "$MODEL" --repeats 10 --json --quiet "$@" 2>/dev/null | tail -1
}
for _ in $(seq 1 "$ROUNDS"); do
  case ${1:-plan} in
    plan)
      echo "load $(load) BEFORE+compile $(plan "$OLD/src")"
      echo "load $(load) AFTER+compile $(plan src)" ;;
    train)
      echo "load $(load) BEFORE $(train "$OLD/src")"
      echo "load $(load) BEFORE+compile $(train "$OLD/src" --compile default)"
      echo "load $(load) AFTER+compile+bf16 $(train src --compile default --amp)" ;;
  esac
done
