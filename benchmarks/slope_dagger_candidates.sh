#!/usr/bin/env bash
# Session 18: `simdist dagger`'s selection step on the slope. Three head seeds (train_seed 0, 1, 2) on the seed-0
# collection of benchmarks/slope_dagger_cli.sh, each evaluated alone in `sim` on a μ = 0.19 panel with the `real`
# sensor noise (20 episodes at 0.1 and at 0.3 m/s); the best becomes OUT/model, which is then evaluated alone in
# `real` at μ = 0.19 (seeds 0 1 2). Starts from a copy of runs/dagger_cli_slope_exec (its collection and candidate 0
# are reused). Records: benchmarks/results/slope_dagger_cli.jsonl. ≈ 18 min of training, 4 min of evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; OUT=${OUT:-$R/dagger_cli_slope_cand}; REC=benchmarks/results/slope_dagger_cli.jsonl
[ -d "$OUT" ] || cp -r "$R/dagger_cli_slope_exec" "$OUT"
OMP_NUM_THREADS=1 simdist dagger slippery-slope --checkpoint checkpoints/quadruped-lowfric-history \
  --sim-data "$R/quadruped_data_v3" --physics benchmarks/physics/sim_panel_friction.json --grid 0.1 --grid 0.3 \
  --episodes-per-grid 60 --set dagger.seed=100 --set dagger.train_seed=0 --set dagger.candidates=3 \
  --eval-physics benchmarks/physics/slope_sim_panel_mu0.19_noise.json --out "$OUT" --json --quiet | tail -n 1 > "$OUT.json"
python -c "import json; d = json.load(open('$OUT.json')); d.update(kind='dagger_run', model='$(basename "$OUT")'); print(json.dumps(d))" >> "$REC"
slope_mu019_to "$REC" "\"model\": \"$(basename "$OUT")\"" "$OUT/model" policy "${SEEDS:-0 1 2}"
