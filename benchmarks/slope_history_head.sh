#!/usr/bin/env bash
# Session 15: does a BC head that sees the proprioceptive history (policy_sees_history = true, past actions hidden)
# learn the low-friction gait the z_t-only head lacks? Trains only the head of the low-friction model on its own
# simulation data, with and without history, and evaluates on the μ = 0.19 panel in `real` and in `sim`.
# Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh). Records:
# benchmarks/results/slope_low_friction.jsonl. One core per job, two at a time; data loading needs ≈ 9 GB per
# finetune. ≈ 1 h on 2 cores. Usage: bash benchmarks/slope_history_head.sh
# (Session 15's recorded run set the flag in a copy's config.json, before `simdist finetune --model-set` existed.)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric}
REC=benchmarks/results/slope_low_friction.jsonl
head_only() {  # FROM OUT STEPS LR LR_END HISTORY(true|false)
  [ -f "$2/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$1" --data "$R/quadruped_data_v3" \
    --out "$2" --preset quadruped-cpu --trainable policy --set loss.latent=0 --set loss.bc=1 --sim-replay 0 \
    --steps "$3" --set finetune.batch_size=128 --set finetune.lr="$4" --set finetune.lr_end="$5" --set finetune.warmup_steps=100 \
    --set model.policy_sees_history="$6" --quiet
}
ev() {  # CHECKPOINT NAME DOMAIN PHYSICS SEED
  evaluate_to "$REC" "{\"model\": \"$2\", \"domain\": \"$3\", \"physics\": \"$4\", \"seed\": $5}" \
    simdist evaluate slippery-slope --checkpoint "$1" --domain "$3" --grid all --trials 5 --mppi quadruped-cpu \
    --prior-weight 10 --physics "benchmarks/physics/$4.json" --seed "$5" --json
}
head_only "$CKPT" "$R/q_lowfric_bc3k" 3000 1e-4 5e-5 false &  # the control: the same training without history
head_only "$CKPT" "$R/q_lowfric_phist_bc3k" 3000 1e-4 5e-5 true
head_only "$CKPT" "$R/q_lowfric_phist_bc10k" 10000 1e-4 5e-5 true
wait
head_only "$R/q_lowfric_phist_bc10k" "$R/q_lowfric_phist_bc30k" 20000 5e-5 2.5e-5 true &  # continued: 30,000 in all
ev "$R/q_lowfric_bc3k" q_lowfric_bc3k real slope_real_mu0.19 0
ev "$R/q_lowfric_bc3k" q_lowfric_bc3k sim slope_sim_panel_mu0.19 0
ev "$R/q_lowfric_phist_bc3k" q_lowfric_phist_bc3k sim slope_sim_panel_mu0.19 0
for seed in 0 1 2; do ev "$R/q_lowfric_phist_bc3k" q_lowfric_phist_bc3k real slope_real_mu0.19 "$seed"; done
for seed in 1 2; do ev "$CKPT" q_lowfric sim slope_sim_panel_mu0.19 "$seed"; done  # seed 0: slope_mu019_sim_vs_real.sh
wait
for name in q_lowfric_phist_bc10k q_lowfric_phist_bc30k; do
  for seed in 0 1 2; do
    ev "$R/$name" "$name" real slope_real_mu0.19 "$seed" &
    ev "$R/$name" "$name" sim slope_sim_panel_mu0.19 "$seed"
    wait
  done
done
