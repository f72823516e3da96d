#!/bin/bash
# Does a stronger sensor-noise augmentation close more of Foam's `real` gap? The shipped model's last step (8,000
# warm-start steps at sensor_noise_scale=1 from the model before session 9, BASE) repeated at SCALE, then MPPI
# (λ = 10) in `real` and `sim`, seeds 0-2 of 5 trials × 3 speeds. Records: benchmarks/results/quadruped_sensor_noise.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-runs/q_pre_sn}  # `git show 96a0b08:checkpoints/quadruped-cpu/{config.json,model.safetensors}`
SCALE=${SCALE:-2.0}
OUT=runs/q_sensor_noise_x$SCALE
simdist pretrain --data runs/quadruped_data_v2 --out "$OUT" --init-from "$BASE" --preset quadruped-cpu --steps 8000 \
  --set model.sensor_noise_scale="$SCALE" --set train.lr=2e-4 --set train.lr_end=1e-4 --set train.warmup_steps=200 --quiet
source benchmarks/eval_record.sh
for seed in 0 1 2; do
  for domain in real sim; do
    evaluate_to benchmarks/results/quadruped_sensor_noise.jsonl "{\"model\": \"sensor_noise_scale=$SCALE\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT" --domain "$domain" --grid all --trials 5 --mppi quadruped-cpu \
      --prior-weight 10 --seed "$seed" --json &
  done
  wait
done
