#!/usr/bin/env bash
# Session 23: a DAgger round driven by SimDist's own head on the height-offset model (session 22's
# runs/q_height_offset). Round 1 is single-step BC's DAgger round (`--initial-labels runs/dagger_bc_foam_sS/dagger_data`:
# the head learns from the states BC drove to, as foam_head_on_bc_states.sh does); round 2's states are
# the round-1 head's own, labelled by the privileged expert; each round trains the policy group (chunk and a
# 128-wide single-step head, BC's learning rate 1e-3 → 5e-4) with tail windows on all labels so far, half of each
# batch replayed from runs/quadruped_data_v2. Then the head alone in `real` (and on rigid pads), eval seeds
# 0 1 2 × 5 trials × 3 speeds. Records: benchmarks/results/foam_bc_dagger.jsonl (rows `dagger_offset_foam_rN_sS`).
# Usage: SEED=0 ROUNDS=2 bash benchmarks/foam_offset_dagger.sh   (≈ 30 min on one core)
# More rounds on a finished run without touching it (session 24): FROM=runs/dagger_offset_foam_s0 ROUNDS=3 copies its
# labels and round checkpoints into OUT (default runs/dagger_offset_foam_r3_s0), and `simdist dagger` resumes there.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; ROUNDS=${ROUNDS:-2}; REC=benchmarks/results/foam_bc_dagger.jsonl
BASE=${BASE:-$R/q_height_offset}; TAG=dagger_offset_foam_r${ROUNDS}_s$SEED
OUT=$R/dagger_offset_foam_s$SEED; [ -n "${FROM:-}" ] && OUT=$R/$TAG
if [ -n "${FROM:-}" ] && [ ! -d "$OUT" ]; then
  mkdir -p "$OUT.tmp" && cp -r "$FROM"/dagger_config.json "$FROM"/dagger_data "$FROM"/round_* "$OUT.tmp"/ && mv "$OUT.tmp" "$OUT"
fi
dagger_to "$REC" "$OUT" simdist dagger foam --checkpoint "$BASE" --sim-data "$R/quadruped_data_v2" \
    --initial-labels "$R/dagger_bc_foam_s$SEED/dagger_data" --rounds "$ROUNDS" --episodes-per-grid 40 \
    --workers "${WORKERS:-1}" --set dagger.seed=$((100 + SEED)) \
    --set dagger.train_seed="$SEED" --set dagger.sensor_noise_steps=0 --set dagger.step_head_width=128 --set dagger.lr=1e-3 --set dagger.lr_end=5e-4 \
    --set dagger.tail_windows=true
for seed in ${SEEDS:-0 1 2}; do
  for world in real rigid; do
    PHYS=(); [ "$world" = real ] || PHYS=(--physics "benchmarks/physics/foam_real_$world.json")
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"real\", \"world\": \"$world\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT/model" --domain real --grid all --trials 5 --agent policy \
      --seed "$seed" "${PHYS[@]}" --json
  done
done
