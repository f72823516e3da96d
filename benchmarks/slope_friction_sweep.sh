#!/bin/bash
# How hard is Slippery Slope's `real` panel, and what makes the world model fail there? The privileged expert (true
# state) and a world model (MPPI λ = 10) on `real` with the panel friction overridden
# (benchmarks/physics/slope_real_mu*.json; as shipped μ = 0.15, the sim floor is 0.2), with the robot's sensor noise
# on or, NOISE=off, switched off (slope_real_mu*_noise_off.json). A `real` that the expert itself rarely climbs
# cannot show what adaptation adds.
# Records: benchmarks/results/slope_friction_sweep.jsonl. One core; MUS, SEEDS, CKPT, NOISE, AGENTS select.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
CKPT=${CKPT:-runs/q_v2_nohist}
MUS=${MUS:-"0.17 0.19"}
SEEDS=${SEEDS:-"0 1 2"}
NOISE=${NOISE:-on}
AGENTS=${AGENTS:-"expert simdist"}
RECORD=benchmarks/results/slope_friction_sweep.jsonl
for mu in $MUS; do
  physics=benchmarks/physics/slope_real_mu$mu.json
  [ "$NOISE" = off ] && physics=benchmarks/physics/slope_real_mu${mu}_noise_off.json
  tag="\"panel_friction\": $mu, \"sensor_noise\": \"$NOISE\""
  for seed in $SEEDS; do
    for agent in $AGENTS; do
      case $agent in
        expert) evaluate_to "$RECORD" "{\"agent\": \"expert\", $tag, \"seed\": $seed}" \
          simdist expert eval slippery-slope --domain real --grid all --trials 5 --physics "$physics" --seed "$seed" \
          --json ;;
        simdist) evaluate_to "$RECORD" "{\"agent\": \"simdist\", $tag, \"seed\": $seed}" \
          simdist evaluate slippery-slope --checkpoint "$CKPT" --domain real --grid all --trials 5 \
          --mppi quadruped-cpu --prior-weight 10 --physics "$physics" --seed "$seed" --json ;;
        *) echo "unknown agent $agent" >&2; exit 2 ;;
      esac
    done
  done
done
