#!/usr/bin/env bash
# DAgger rounds for the slope's history head (sessions 16–17). Round r: the round r−1 head (round 1: CKPT, the shipped
# history head) drives in `sim` under PHYSICS (default: randomised slippery panels, μ 0.15–0.4), 60 episodes at
# 0.1 m/s and 60 at 0.3 m/s, and the privileged expert labels every state from the true state; the head's own success
# while driving is recorded (its on-policy `sim` score). The round r−1 head is then trained 5,000 more head-only steps
# on all DAgger data so far (the aggregate, as DAgger prescribes), half of each batch from `quadruped_data_v3`, and
# evaluated alone in `real` at μ = 0.19 (seeds 0 1 2); the last round with MPPI (λ = 10) too.
# NAME=dagger continues benchmarks/slope_dagger.sh's round 1 (runs/slope_dagger, runs/q_lowfric_phist_dagger1);
# another NAME starts from round 1. Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh).
# Records: benchmarks/results/slope_dagger_rounds.jsonl. ≈ 15 min per round on 2 cores.
# Usage: LAST=4 bash benchmarks/slope_dagger_rounds.sh
#        NAME=dagger_noise PHYSICS=benchmarks/physics/sim_panel_friction_noise.json LAST=3 bash …  (sensor noise on)
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; LAST=${LAST:-4}; NAME=${NAME:-dagger}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}
PHYSICS=${PHYSICS:-benchmarks/physics/sim_panel_friction.json}; REC=benchmarks/results/slope_dagger_rounds.jsonl
collected() {  # DATA_DIR ROUND: append the head's on-policy `sim` success while it drove
  python -c "import json, sys; s = json.load(open('$1/collection.json')); s.update(round=$2, kind='dagger_collection')
print(json.dumps(s))" >> "$REC"
}
if [ "$NAME" = dagger ]; then first=2; data_dirs=("$R/slope_dagger"); else first=1; data_dirs=(); fi
for ((r = first; r <= LAST; r++)); do
  prev=$R/q_lowfric_phist_$NAME$((r - 1)); [ "$r" -gt 1 ] || prev=$CKPT
  out=$R/q_lowfric_phist_$NAME$r; data=$R/slope_${NAME}_r$r
  for speed in 0.1 0.3; do
    d=${data}_$speed
    [ -f "$d/collection.json" ] || { rm -rf "$d"; OMP_NUM_THREADS=1 python benchmarks/slope_dagger.py \
      --checkpoint "$prev" --physics "$PHYSICS" --speeds "$speed" --episodes 60 --seed $((100 + 10 * r)) \
      --out "$d" && collected "$d" "$r"; } &
  done
  wait
  [ -d "$data" ] || simdist merge "${data}_0.1" "${data}_0.3" --out "$data"
  data_dirs+=("$data")
  agg=$R/slope_${NAME}_agg$r
  [ -d "$agg" ] || simdist merge "${data_dirs[@]}" --out "$agg"
  [ -f "$out/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$prev" --data "$agg" \
    --sim-data "$R/quadruped_data_v3" --sim-replay 0.5 --out "$out" --preset quadruped-cpu --trainable policy \
    --set loss.latent=0 --set loss.bc=1 --steps 5000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
    --set finetune.warmup_steps=100 --quiet
  agents=policy; [ "$r" -lt "$LAST" ] || agents="policy mppi"
  slope_mu019_to "$REC" "\"model\": \"q_lowfric_phist_$NAME$r\", \"round\": $r" "$out" "$agents" "${SEEDS:-0 1 2}"
done
