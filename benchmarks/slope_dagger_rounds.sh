#!/usr/bin/env bash
# Session 17: DAgger rounds 2..LAST for the slope's history head, after benchmarks/slope_dagger.sh's round 1.
# Round r: the round r−1 head drives in `sim` on randomised slippery panels (μ 0.15–0.4), 60 episodes at 0.1 m/s and
# 60 at 0.3 m/s, the privileged expert labels every state; the head's own success while driving is recorded (its
# on-policy `sim` score); the round r−1 head is then trained 5,000 more head-only steps on all DAgger data so far
# (the aggregate, as DAgger prescribes), half of each batch from `quadruped_data_v3`, and evaluated alone in `real`
# at μ = 0.19 (seeds 0 1 2); the last round with MPPI too. Needs runs/quadruped_data_v3, runs/slope_dagger and
# runs/q_lowfric_phist_dagger1 (slope_dagger.sh). Records: benchmarks/results/slope_dagger_rounds.jsonl.
# ≈ 15 min per round on 2 cores. Usage: LAST=4 bash benchmarks/slope_dagger_rounds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; LAST=${LAST:-4}; REC=benchmarks/results/slope_dagger_rounds.jsonl
collected() {  # DATA_DIR ROUND: append the head's on-policy `sim` success while it drove
  python -c "import json, sys; s = json.load(open('$1/collection.json')); s.update(round=$2, kind='dagger_collection')
print(json.dumps(s))" >> "$REC"
}
data_dirs=("$R/slope_dagger")
for ((r = 2; r <= LAST; r++)); do
  prev=$R/q_lowfric_phist_dagger$((r - 1)); out=$R/q_lowfric_phist_dagger$r
  for speed in 0.1 0.3; do
    d=$R/slope_dagger_r${r}_$speed
    [ -f "$d/collection.json" ] || { rm -rf "$d"; OMP_NUM_THREADS=1 python benchmarks/slope_dagger.py \
      --checkpoint "$prev" --physics benchmarks/physics/sim_panel_friction.json --speeds "$speed" --episodes 60 \
      --seed $((100 + 10 * r)) --out "$d" && collected "$d" "$r"; } &
  done
  wait
  [ -d "$R/slope_dagger_r$r" ] || simdist merge "$R/slope_dagger_r${r}_0.1" "$R/slope_dagger_r${r}_0.3" \
    --out "$R/slope_dagger_r$r"
  data_dirs+=("$R/slope_dagger_r$r")
  agg=$R/slope_dagger_agg$r
  [ -d "$agg" ] || simdist merge "${data_dirs[@]}" --out "$agg"
  [ -f "$out/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$prev" --data "$agg" \
    --sim-data "$R/quadruped_data_v3" --sim-replay 0.5 --out "$out" --preset quadruped-cpu --trainable policy \
    --loss-set latent=0 --loss-set bc=1 --steps 5000 --set batch_size=128 --set lr=1e-4 --set lr_end=5e-5 \
    --set warmup_steps=100 --quiet
  agents=policy; [ "$r" -lt "$LAST" ] || agents="policy mppi"
  slope_mu019_to "$REC" "\"model\": \"q_lowfric_phist_dagger$r\", \"round\": $r" "$out" "$agents" "${SEEDS:-0 1 2}"
done
