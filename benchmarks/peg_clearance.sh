#!/usr/bin/env bash
# Is the hole's clearance what caps the shipped Peg Insertion model? The planner (`manipulation-prior`) with the
# clearance widened from 0.8 mm to 2 and 4 mm (benchmarks/physics/peg_clearance_*.json), `sim` and `real`, Narrow,
# 20 trials per seed, one JSON line per evaluation appended to benchmarks/results/peg_clearance.jsonl. The 0.8 mm
# rows are session 9's (peg_sim_eval_2seeds.jsonl, peg_real_gaps_planner.jsonl). Session 34:
#   SEEDS="0 1" bash benchmarks/peg_clearance.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-0 1}; CLEARANCES=${CLEARANCES:-0.002 0.004}; DOMAINS=${DOMAINS:-sim real}
REC=${REC:-benchmarks/results/peg_clearance.jsonl}
CK=$(mktemp -d)/peg-insertion  # a copy: `simdist evaluate` writes eval_info.json into the checkpoint folder
cp -r checkpoints/peg-insertion "$CK"
for c in $CLEARANCES; do for d in $DOMAINS; do for s in $SEEDS; do
  simdist evaluate peg-insertion --checkpoint "$CK" --domain "$d" --grid narrow --trials 20 --mppi manipulation-prior \
    --seed "$s" --physics "benchmarks/physics/peg_clearance_$c.json" --json --quiet | tail -1 |
    python -c "import json, sys; r = json.load(sys.stdin); r.update(checkpoint='checkpoints/peg-insertion',
seed=$s, clearance_m=$c, physics='benchmarks/physics/peg_clearance_$c.json', mppi='manipulation-prior'); print(json.dumps(r))" >> "$REC"
done; done; done
