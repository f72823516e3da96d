#!/usr/bin/env bash
# Session 20: Foam's SimDist model through `simdist dagger` with a single-step head beside the chunk head
# (--set dagger.step_head_width=128: BC's MLP width; its action is the one deployed), trained at BC's learning rate (1e-3,
# decaying to 5e-4; the chunk head trains with it), otherwise the recipe of foam_dagger_cli.sh (40 episodes at each
# speed per round, 5,000 head-only steps per round with half of each batch replayed from runs/quadruped_data_v2, the
# model's sensor-noise augmentation, no separate noise stage). ROUNDS=n rounds (default 2). Round 1's collection is
# the shipped head's, the same episodes as foam_dagger_cli.sh's (same seeds); it is reused from
# runs/dagger_cli_foam_sS when present. Then the head alone in `real` and `sim` and MPPI (λ = 10) in `real`, eval
# seeds 0 1 2 × 5 trials × 3 speeds. Records: benchmarks/results/foam_bc_dagger.jsonl (rows `dagger_step_foam_rN_sS`).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; ROUNDS=${ROUNDS:-2}; REC=benchmarks/results/foam_bc_dagger.jsonl
OUT=$R/dagger_step_foam_s$SEED; TAG=dagger_step_foam_r${ROUNDS}_s$SEED
if [ ! -d "$OUT/dagger_data" ] && [ -d "$R/dagger_cli_foam_s$SEED/dagger_data" ]; then
  mkdir -p "$OUT/dagger_data/episodes"
  cp "$R/dagger_cli_foam_s$SEED/dagger_data/dataset.json" "$OUT/dagger_data/"
  cp "$R/dagger_cli_foam_s$SEED"/dagger_data/episodes/r01_* "$OUT/dagger_data/episodes/"
fi
dagger_to "$REC" "$OUT" simdist dagger foam --checkpoint checkpoints/quadruped-cpu --sim-data "$R/quadruped_data_v2" \
    --rounds "$ROUNDS" --episodes-per-grid 40 --workers "${WORKERS:-2}" --set dagger.seed=$((100 + SEED)) \
    --set dagger.train_seed="$SEED" --set dagger.sensor_noise_steps=0 --set dagger.step_head_width=128 --set dagger.lr=1e-3 --set dagger.lr_end=5e-4
for seed in ${SEEDS:-0 1 2}; do
  for run in "real policy" "sim policy" "real mppi"; do
    set -- $run
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"$1\", \"agent\": \"$2\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT/model" --domain "$1" --grid all --trials 5 --agent "$2" \
      --mppi quadruped-cpu --prior-weight 10 --seed "$seed" --json
  done
done
