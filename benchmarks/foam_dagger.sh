#!/usr/bin/env bash
# Session 17: one DAgger round for the shipped Foam model's BC head (the slope's recipe, benchmarks/slope_dagger.sh).
# Session 4 found the head's Foam failure to be compounding closed-loop error, not fit; DAgger trains on the states
# the head itself reaches. The shipped head (z_t only, sensor-noise augmentation in its config) drives in `sim`,
# 40 episodes at each of 0.2 / 0.7 / 1.2 m/s, the privileged expert labels every state; the head alone is trained
# 5,000 steps on those labels, half of each batch replayed from quadruped_data_v2, with the shipped sensor-noise
# augmentation; then evaluated in `real` and `sim`, BC head alone and MPPI λ = 10, seeds 0 1 2 (the shipped head alone
# too). Needs runs/quadruped_data_v2 (benchmarks/quadruped_data_v2.sh). Records: benchmarks/results/foam_dagger.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-cpu}; OUT=$R/q_foam_dagger1; REC=benchmarks/results/foam_dagger.jsonl
for speed in 0.2 0.7 1.2; do
  d=$R/foam_dagger_$speed
  [ -f "$d/collection.json" ] || { rm -rf "$d"; OMP_NUM_THREADS=1 python benchmarks/slope_dagger.py --task foam \
    --checkpoint "$CKPT" --speeds "$speed" --episodes 40 --out "$d"; } &
done
wait
for speed in 0.2 0.7 1.2; do
  python -c "import json; s = json.load(open('$R/foam_dagger_$speed/collection.json')); s.update(kind='dagger_collection', task='foam')
print(json.dumps(s))" >> "$REC"
done
[ -d "$R/foam_dagger" ] || simdist merge "$R"/foam_dagger_{0.2,0.7,1.2} --out "$R/foam_dagger"
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" --data "$R/foam_dagger" \
  --sim-data "$R/quadruped_data_v2" --sim-replay 0.5 --out "$OUT" --preset quadruped-cpu --trainable policy \
  --set loss.latent=0 --set loss.bc=1 --steps 5000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
  --set finetune.warmup_steps=100 --quiet
ev() {  # CHECKPOINT DOMAIN AGENT SEED
  evaluate_to "$REC" "{\"model\": \"$(basename "$1")\", \"domain\": \"$2\", \"agent\": \"$3\", \"seed\": $4}" \
    simdist evaluate foam --checkpoint "$1" --domain "$2" --grid all --trials 5 --agent "$3" --mppi quadruped-cpu \
    --prior-weight 10 --seed "$4" --json
}
for seed in ${SEEDS:-0 1 2}; do
  ev "$OUT" real policy "$seed"; ev "$CKPT" real policy "$seed"; ev "$OUT" real mppi "$seed"; ev "$OUT" sim policy "$seed"
done
