#!/usr/bin/env bash
# Session 21: what Foam's `real` gap is made of for the model whose head transfers (session 20: the shipped model with
# a single-step head trained on single-step BC's DAgger round, runs/head_on_bc_states_step128_lr1e-3_s0: 0.96 alone in
# `sim`, 0.36 in `real`). Session 9's split, on that model: `real` as shipped, with the sensor noise off, with rigid
# pads (foam_priority 0), and with both (the fixed robot alone), the head alone and MPPI `quadruped-cpu` (λ = PRIOR,
# default 10), eval seeds SEEDS (default 0 1 2) × 5 trials × 3 speeds. Builds the model first if missing
# (foam_bc_dagger.sh then foam_head_on_bc_states.sh, seed 0, without their own evaluations). AGENTS picks
# "policy mppi" (default both), WORLDS a subset of "real noise_off rigid rigid_noise_off".
# Records: benchmarks/results/foam_step_head_gap.jsonl. ≈ 0.5 min per head evaluation, ≈ 2 min per MPPI one, one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; REC=benchmarks/results/foam_step_head_gap.jsonl; PRIOR=${PRIOR:-10}
CKPT=${CKPT:-$R/head_on_bc_states_step128_lr1e-3_s0}
if [ ! -f "$CKPT/model.safetensors" ]; then
  R="$R" SEED=0 SEEDS=" " bash benchmarks/foam_bc_dagger.sh
  R="$R" STEP=128 LR=1e-3 SEED=0 SEEDS=" " bash benchmarks/foam_head_on_bc_states.sh
fi
for world in ${WORLDS:-real noise_off rigid rigid_noise_off}; do
  PHYS=(); [ "$world" = real ] || PHYS=(--physics "benchmarks/physics/foam_real_$world.json")
  for agent in ${AGENTS:-policy mppi}; do
    for seed in ${SEEDS:-0 1 2}; do
      evaluate_to "$REC" "{\"model\": \"$(basename "$CKPT")\", \"world\": \"$world\", \"agent\": \"$agent\", \"prior_weight\": $PRIOR, \"seed\": $seed}" \
        simdist evaluate foam --checkpoint "$CKPT" --domain real --grid all --trials 5 --agent "$agent" \
        --mppi quadruped-cpu --prior-weight "$PRIOR" --seed "$seed" "${PHYS[@]}" --json
    done
  done
done
