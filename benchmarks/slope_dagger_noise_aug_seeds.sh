#!/usr/bin/env bash
# Session 17: the spread of the DAgger + sensor-noise head recipe over training seeds. For each TRAIN_SEEDS seed S,
# both head-only stages of checkpoints/quadruped-lowfric-dagger run again with `--set seed=S` on the same data: 5,000
# steps on the round-1 DAgger data (benchmarks/slope_dagger.sh), then 5,000 with sensor-noise augmentation
# (benchmarks/slope_dagger_noise_aug.sh); evaluated alone in `real` at μ = 0.19 (seeds 0 1 2). Needs
# runs/quadruped_data_v3 and runs/slope_dagger. Records: benchmarks/results/slope_dagger_rounds.jsonl.
# Usage: TRAIN_SEEDS="1" bash benchmarks/slope_dagger_noise_aug_seeds.sh   (≈ 10 min of training + 3 evaluations)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}; REC=benchmarks/results/slope_dagger_rounds.jsonl
head_only() {  # FROM OUT SEED [--set model.…]
  local from=$1 out=$2 seed=$3; shift 3
  [ -f "$out/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$from" --data "$R/slope_dagger" \
    --sim-data "$R/quadruped_data_v3" --sim-replay 0.5 --out "$out" --preset quadruped-cpu --trainable policy \
    --set loss.latent=0 --set loss.bc=1 --steps 5000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
    --set finetune.warmup_steps=100 --set finetune.seed="$seed" "$@" --quiet
}
for s in ${TRAIN_SEEDS:-1}; do
  head_only "$CKPT" "$R/q_lowfric_phist_dagger1_ts$s" "$s"
  head_only "$R/q_lowfric_phist_dagger1_ts$s" "$R/q_lowfric_phist_dagger1_aug_ts$s" "$s" --set model.sensor_noise_scale=1
  slope_mu019_to "$REC" "\"model\": \"q_lowfric_phist_dagger1_aug_ts$s\"" "$R/q_lowfric_phist_dagger1_aug_ts$s" \
    policy "${SEEDS:-0 1 2}"
done
