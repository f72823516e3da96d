#!/usr/bin/env bash
# Session 16: domain randomisation of the slippery panels themselves. The slope data so far randomised the feet's
# μ (everywhere), never the panel's: the robot never walked from grippy floor onto a slippery panel, which is what
# `real` asks. This generates course data with the panels' μ drawn per episode from 0.15–0.4 at priority 2
# (benchmarks/physics/sim_panel_friction.json; the feet keep the 0.2–1.2 randomisation), merges it into
# quadruped_data_v3 and trains, from checkpoints/quadruped-lowfric-history, (a) the history BC head alone and
# (b) every module for 6,000 steps; then evaluates both in `real` at μ = 0.19 (MPPI and the BC head alone) and in
# `sim` on a μ = 0.19 panel. Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh).
# Records: benchmarks/results/slope_panel_friction.jsonl. One core per job; ≈ 10 GB per training process.
# Usage: bash benchmarks/slope_panel_friction.sh   (SEEDS="0 1 2"; ≈ 1 h on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}; SEEDS=${SEEDS:-"0 1 2"}
REC=benchmarks/results/slope_panel_friction.jsonl
[ -d "$R/slope_panel_data" ] || OMP_NUM_THREADS=1 python -m simdist.tasks.quadruped.generate_batched \
  --task slippery-slope --scene course --physics benchmarks/physics/sim_panel_friction.json --envs 64 \
  --transitions 400000 --seed 22 --out "$R/slope_panel_data"
[ -d "$R/quadruped_data_v4" ] || simdist merge "$R/quadruped_data_v3" "$R/slope_panel_data" --out "$R/quadruped_data_v4"
[ -f "$R/q_panel_phist_bc10k/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" \
  --data "$R/quadruped_data_v4" --out "$R/q_panel_phist_bc10k" --preset quadruped-cpu --trainable policy \
  --set loss.latent=0 --set loss.bc=1 --sim-replay 0 --steps 10000 --set finetune.batch_size=128 --set finetune.lr=1e-4 \
  --set finetune.lr_end=5e-5 --set finetune.warmup_steps=100 --set model.policy_sees_history=true --quiet &
[ -f "$R/q_panel_phist_full/model.safetensors" ] || OMP_NUM_THREADS=1 simdist pretrain --data "$R/quadruped_data_v4" \
  --out "$R/q_panel_phist_full" --init-from "$CKPT" --preset quadruped-cpu --steps 6000 --set train.lr=2e-4 \
  --set train.lr_end=1e-4 --set train.warmup_steps=200 --quiet
wait
ev() {  # CHECKPOINT NAME DOMAIN PHYSICS AGENT SEED
  evaluate_to "$REC" "{\"model\": \"$2\", \"domain\": \"$3\", \"physics\": \"$4\", \"agent\": \"$5\", \"seed\": $6}" \
    simdist evaluate slippery-slope --checkpoint "$1" --domain "$3" --grid all --trials 5 --agent "$5" \
    --mppi quadruped-cpu --prior-weight 10 --physics "benchmarks/physics/$4.json" --seed "$6" --json
}
for seed in $SEEDS; do
  for name in q_panel_phist_bc10k q_panel_phist_full; do
    ev "$R/$name" "$name" real slope_real_mu0.19 mppi "$seed" &
    ev "$R/$name" "$name" real slope_real_mu0.19 policy "$seed"
    wait
    [ "$seed" != 0 ] || ev "$R/$name" "$name" sim slope_sim_panel_mu0.19 mppi "$seed"  # seed 0 only
  done
  ev "$CKPT" quadruped-lowfric-history real slope_real_mu0.19 policy "$seed"  # its MPPI rows: session 15
done
