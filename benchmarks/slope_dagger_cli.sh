#!/usr/bin/env bash
# Session 18: the session-17 slope recipe (benchmarks/slope_dagger.sh + slope_dagger_noise_aug.sh, shipped as
# checkpoints/quadruped-lowfric-dagger) rerun through the package command `simdist dagger`: the history head drives on
# randomised slippery panels in `sim`, 60 episodes at 0.1 and at 0.3 m/s, the privileged expert labels; 5,000
# head-only steps, then 5,000 with the sensor noise. Then the head alone in `real` at μ = 0.19 (seeds 0 1 2).
# Needs runs/quadruped_data_v3. Records: benchmarks/results/slope_dagger_cli.jsonl. ≈ 25 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; OUT=${OUT:-$R/dagger_cli_slope}; REC=benchmarks/results/slope_dagger_cli.jsonl
OMP_NUM_THREADS=1 simdist dagger slippery-slope --checkpoint checkpoints/quadruped-lowfric-history \
  --sim-data "$R/quadruped_data_v3" --physics benchmarks/physics/sim_panel_friction.json --grid 0.1 --grid 0.3 \
  --episodes-per-grid 60 --workers 2 --out "$OUT" --json --quiet | tail -n 1 > "$OUT.json"
python -c "import json; d = json.load(open('$OUT.json')); d.update(kind='dagger_run'); print(json.dumps(d))" >> "$REC"
slope_mu019_to "$REC" "\"model\": \"$(basename "$OUT")\"" "$OUT/model" "${AGENTS:-policy}" "${SEEDS:-0 1 2}"
