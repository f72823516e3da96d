#!/usr/bin/env bash
# Speed on this machine, as the figures of docs/benchmarks.md were measured: planner latency, training throughput and
# Alg. 2 data-generation rate. One JSON line per measurement on stdout. Run on an otherwise idle machine.
#   bash benchmarks/speed.sh            # all three (about 10 min on 2 cores)
#   bash benchmarks/speed.sh plan       # or: train, generate
# OUT=dir keeps the generated datasets there (default: a temporary folder, removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
plan() {  # median planning latency (ms) and GFLOP/s of the paper-sized models with the planners the results use
  simdist bench plan --preset paper-manipulation --json --quiet | tail -1
  simdist bench plan --preset paper-manipulation --mppi manipulation-prior --json --quiet | tail -1
  simdist bench plan --preset paper-quadruped --json --quiet | tail -1
  simdist bench plan --preset paper-quadruped --mppi quadruped-cpu --json --quiet | tail -1
}
train() {  # Eq. 2 training steps per second (random batches of the preset's shape)
  for p in cpu paper-manipulation paper-quadruped; do simdist bench train --preset "$p" --repeats 5 --json --quiet | tail -1; done
}
generate() {  # Alg. 2 transitions per second: the expert, its noised variants and the sub-optimal policies
  local out=${OUT:-$(mktemp -d)}
  for spec in "pendulum 200" "peg-insertion 40" "table-leg 20"; do
    set -- $spec
    simdist generate "$1" --episodes "$2" --workers 2 --out "$out/gen_$1" --quiet > /dev/null
    python -c "import json, sys; s = json.load(open(sys.argv[2])); print(json.dumps({'task': sys.argv[1], 'workers': 2,
 **{k: s.get(k) for k in ('episodes', 'steps', 'wall_s', 'episodes_per_s', 'transitions_per_s')}}))" "$1" "$out/gen_$1/stats.json"
  done
  # the quadruped's batched generator (64 environments in one process, one core)
  OMP_NUM_THREADS=1 python -m simdist.data.quadruped_batched --task foam --envs 64 --transitions 50000 \
    --seed 0 --out "$out/gen_quadruped" > /dev/null
  python -c "import json, sys; s = json.load(open(sys.argv[1])); print(json.dumps({'task': 'foam (batched, 64 envs)',
 **{k: v for k, v in s.items() if not isinstance(v, (dict, list))}}))" "$out/gen_quadruped/stats.json"
  [ -n "${OUT:-}" ] || rm -rf "$out"
}
for what in ${@:-plan train generate}; do "$what"; done
