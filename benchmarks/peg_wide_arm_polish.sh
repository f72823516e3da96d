#!/usr/bin/env bash
# Peg Insertion: session 36's gentle polish of the shipped model's BC head (head only, lr 3e-5, 1,000 steps on 400
# Alg. 2 episodes), on episodes whose arm randomisation is widened to cover `real`'s soft, sagging servo
# (benchmarks/physics/peg_sim_wide_arm.json: stiffness x0.45-1.2, gravity compensation 0.9-1.0, arm mass x0.95-1.1;
# `real`: 0.5, 0.92, 1.08). Then the head alone on 40 `sim` and 40 `real` Narrow trials (seed 1), as session 36's
# polish on the default randomisation was measured (sim 0.45, real 0.05). docs/results/peg-insertion.md, session 37.
# About 15 min on one core. Records: benchmarks/results/peg_wide_arm_polish.jsonl.
set -euo pipefail
R=${R:-runs}
OUT=${OUT:-benchmarks/results/peg_wide_arm_polish.jsonl}
data="$R/peg_gen_wide_arm"
model="$R/peg_head_wide_arm"
[ -f "$data/stats.json" ] || simdist generate peg-insertion --episodes 400 --workers 1 --seed 36 \
  --physics benchmarks/physics/peg_sim_wide_arm.json --out "$data" --quiet
bash benchmarks/peg_polish_eval.sh "$data" "$model" "$OUT" "$(python -c "import json
stats = json.load(open('$data/stats.json'))
print(json.dumps({'physics': 'peg_sim_wide_arm.json', 'data_success': stats['success_rate']}))")"
