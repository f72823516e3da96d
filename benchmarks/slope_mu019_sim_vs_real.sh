#!/usr/bin/env bash
# Session 15: is the low-friction model (checkpoints/quadruped-lowfric = runs/q_lowfric) competent on a μ = 0.19
# panel in simulation, and what of the `real` robot's differences does its `real` success depend on? Evaluates the
# model (MPPI quadruped-cpu, λ = 10, 5 trials × 3 speeds) on the μ = 0.19 panel in `sim` (randomised robot) and
# in `real` with one difference changed at a time, then the privileged expert in `sim` on the same panel.
# Records: benchmarks/results/slope_low_friction.jsonl (rows "model": "q_lowfric_regen_s15"), expert results to
# stdout. Two evaluations at a time, one core each: ≈ 15 min.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
CKPT=${CKPT:-checkpoints/quadruped-lowfric}
REC=benchmarks/results/slope_low_friction.jsonl
P=benchmarks/physics
ev() {  # TAG_JSON DOMAIN PHYSICS_FILE [extra simdist evaluate arguments]
  local tag=$1 domain=$2 physics=$3; shift 3
  evaluate_to "$REC" "{\"model\": \"q_lowfric_regen_s15\", \"domain\": \"$domain\", \"seed\": 0, $tag}" \
    simdist evaluate slippery-slope --checkpoint "$CKPT" --domain "$domain" --grid all --trials 5 \
    --mppi quadruped-cpu --prior-weight 10 --physics "$physics" --seed 0 "$@" --json
}
ev '"panel_friction": 0.19' real $P/slope_real_mu0.19.json &
ev '"panel_friction": 0.19, "panel_priority": 2' sim $P/slope_sim_panel_mu0.19.json &
wait
ev '"panel_friction": 0.19, "panel_priority": 2, "foot_friction": 0.8' sim $P/slope_sim_panel_mu0.19_feet0.8.json &
ev '"panel_friction": 0.19, "foot_friction": 0.3' real $P/slope_real_mu0.19_feet0.3.json &
wait
ev '"panel_friction": 0.19, "noise": "off"' real $P/slope_real_mu0.19_noise_off.json &
ev '"panel_friction": 0.19, "panel_priority": 2, "agent": "policy"' sim $P/slope_sim_panel_mu0.19.json --agent policy &
wait
ev '"panel_friction": 0.19, "panel_priority": 2, "noise": 1.0' sim $P/slope_sim_panel_mu0.19_noise.json &
ev '"panel_friction": 0.19, "noise": 2.0' real $P/slope_real_mu0.19_noise2.json &
wait
for seed in 1 2; do  # the rebuilt model's other `real` seeds (rows "model": "q_lowfric")
  evaluate_to "$REC" "{\"model\": \"q_lowfric\", \"domain\": \"real\", \"physics\": \"slope_real_mu0.19\", \"seed\": $seed}" \
    simdist evaluate slippery-slope --checkpoint "$CKPT" --domain real --grid all --trials 5 --mppi quadruped-cpu \
    --prior-weight 10 --physics $P/slope_real_mu0.19.json --seed $seed --json &
done
wait
for physics in slope_sim_panel_mu0.19 slope_sim_panel_mu0.19_feet0.8; do
  OMP_NUM_THREADS=1 simdist expert eval slippery-slope --domain sim --grid all --trials 5 --physics $P/$physics.json \
    --json --quiet | tail -n 1
done
