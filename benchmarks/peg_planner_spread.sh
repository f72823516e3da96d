#!/usr/bin/env bash
# Does a planner that searches *near* the BC chunk lift the shipped Peg Insertion model? `manipulation-prior`
# (prior λ = 1000) samples its Gaussian candidates with the preset's spread (init_std 1.0): each pays a prior penalty
# near λ and is never an elite, so only the BC chunk's 100 noised copies (noise 0.02) compete. A spread of 0.05-0.1
# keeps Gaussian candidates within a few units of penalty, so the model's own returns choose among small corrections
# (on the point mass a 0.1 spread was what let the adapted dynamics pay, docs/results/peg-insertion.md session 35).
# Each VARIANT is a space-separated list of MPPIConfig overrides ("default": none); Narrow grid, 20 trials per seed,
# one JSON line per evaluation appended to benchmarks/results/peg_planner_spread.jsonl. Session 35:
#   SEEDS="0 1" bash benchmarks/peg_planner_spread.sh
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/..}"
SEEDS=${SEEDS:-0 1}; DOMAINS=${DOMAINS:-sim}; CK=${CK:-checkpoints/peg-insertion}
REC=${REC:-benchmarks/results/peg_planner_spread.jsonl}
VARIANTS=${VARIANTS:-"default|init_std=0.05|init_std=0.1 prior_weight=100"}
SCRATCH=$(mktemp -d)
IFS='|' read -r -a LIST <<< "$VARIANTS"
for d in $DOMAINS; do for s in $SEEDS; do for v in "${LIST[@]}"; do
  sets=()
  [ "$v" != default ] && for kv in $v; do sets+=(--set "mppi.$kv"); done
  simdist evaluate peg-insertion --checkpoint "$CK" --domain "$d" --grid narrow --trials 20 --mppi manipulation-prior \
    --seed "$s" "${sets[@]}" --out "$SCRATCH/eval_info.json" --json --quiet |
    python -c "import json, sys; r = json.loads(sys.stdin.read().splitlines()[-1]); r.update(checkpoint='$CK',
variant='$v', seed=$s, mppi='manipulation-prior'); print(json.dumps(r))" >> "$REC"
done; done; done
