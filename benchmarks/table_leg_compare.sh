#!/usr/bin/env bash
# Every method on Table Leg under one budget (issue #7's table for this task; before session 34 only single-step BC
# had been run there): Alg. 2 data, the `cpu` world model, then `simdist compare` with SimDist, SimDist+BC, BC, IQL,
# RLPD, SGFT and Diffusion Policy with and without co-training, Narrow grid, 40 real episodes (SimDist: zero shot and
# one finetune), 1 seed, `cpu` presets throughout. The demonstrations are the privileged expert's successful
# attempts in `real` (Table Leg has no gentler teleoperator; the expert succeeds in about 0.45 of them there).
# Session 34:
#   bash benchmarks/table_leg_compare.sh        # R=runs/tl_compare; records benchmarks/results/compare_table_leg_*.json
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs/tl_compare}; EPISODES=${EPISODES:-500}; SEEDS=${SEEDS:-1}
[ -f "$R/sim_data/dataset.json" ] || simdist generate table-leg --episodes "$EPISODES" --workers 2 --out "$R/sim_data" --quiet
[ -f "$R/pretrained/model.safetensors" ] || simdist pretrain --data "$R/sim_data" --out "$R/pretrained" --preset cpu --quiet
C="simdist compare table-leg --sim-data $R/sim_data --grid narrow --seeds $SEEDS --preset cpu --budget 40 --episodes-per-round 20 --quiet --json"
record() {  # record NAME ARGS...: the comparison's JSON line, written only when the command succeeds
  local name=$1; shift
  local line; line=$($C "$@" | tail -1)
  echo "$line" > "benchmarks/results/compare_table_leg_$name.json"
}
record world_model --methods simdist,simdist_bc --checkpoint "$R/pretrained" --out "$R/world_model"
record offline --methods bc,dp,dp_cotrain --out "$R/offline"
record rl --methods iql,rlpd,sgft --episodes-per-update 20 --out "$R/rl"
