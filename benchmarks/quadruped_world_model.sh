#!/usr/bin/env bash
# Regenerates checkpoints/quadruped-cpu (docs/results.md, quadruped sections): data, then the exact chain of
# pretraining runs that produced it. About 3 h on 2 CPU cores; each `simdist pretrain` resumes if interrupted.
set -euo pipefail
R=${R:-runs}
R="$R" bash "$(dirname "$0")/quadruped_data_v2.sh"  # 1.95 M terrain + 0.77 M course transitions
# 18k → 40k → 80k steps on the terrain data (BC head attending to the whole context, as it was then), 100k on the
# merged data, 110k without the past actions in the BC head's context, 120k on z_t alone (the preset's setting now)
with_actions=(--set model.policy_sees_actions=true --set model.policy_sees_history=true)
for steps in 18000 40000 80000; do
  simdist pretrain --data "$R/quadruped_data_v1" --out "$R/q" --preset quadruped-cpu --steps $steps "${with_actions[@]}"
done
simdist pretrain --data "$R/quadruped_data_v2" --out "$R/q" --preset quadruped-cpu --steps 100000 "${with_actions[@]}"
simdist pretrain --data "$R/quadruped_data_v2" --out "$R/q" --preset quadruped-cpu --steps 110000 \
  --set model.policy_sees_actions=false --set model.policy_sees_history=true
simdist pretrain --data "$R/quadruped_data_v2" --out "$R/q" --preset quadruped-cpu --steps 120000
# 8,000 more steps with the authors' sensor-noise augmentation (session 9: Foam `real` zero shot 0.07 -> 0.22)
simdist pretrain --data "$R/quadruped_data_v2" --out "$R/q_sensor_noise" --init-from "$R/q" --preset quadruped-cpu \
  --steps 8000 --set model.sensor_noise_scale=1.0 --set train.lr=2e-4 --set train.lr_end=1e-4 --set train.warmup_steps=200
mkdir -p checkpoints/quadruped-cpu
cp "$R/q_sensor_noise"/{config.json,model.safetensors,metrics.jsonl} checkpoints/quadruped-cpu/
