#!/usr/bin/env bash
# Table I on the pendulum with replicates (session 34; session 7's table had one): the demo's simulation data, the
# same volume of clean expert data for the expert-only row, then `simdist ablate` once per seed (data subset,
# pretraining initialisation and the 20 evaluation trials all follow --seed). Records
# benchmarks/results/ablate_pendulum_s{SEED}.json; table: python benchmarks/ablation_seeds_table.py benchmarks/results/ablate_pendulum_s*.json
#   bash benchmarks/pendulum_table1_seeds.sh          # R=runs/pendulum_table1, SEEDS="0 1 2"
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs/pendulum_table1}; SEEDS=${SEEDS:-0 1 2}
[ -f "$R/demo/sim_data/dataset.json" ] || MUJOCO_GL=disable simdist demo --task pendulum --out "$R/demo" --quiet > /dev/null
[ -f "$R/expert_data/dataset.json" ] || simdist generate pendulum --episodes 1000 --expert-only --workers 2 \
  --out "$R/expert_data" --quiet > /dev/null
for s in $SEEDS; do
  line=$(simdist ablate pendulum --sim-data "$R/demo/sim_data" --expert-data "$R/expert_data" --out "$R/s$s" --seed "$s" \
    --variants simdist,data-50,data-10,expert-only,mlp-heads,reconstruction --json --quiet | tail -1)
  echo "$line" > "benchmarks/results/ablate_pendulum_s$s.json"
done
