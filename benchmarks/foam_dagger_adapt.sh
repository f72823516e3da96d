#!/usr/bin/env bash
# Session 17: Alg. 1 on the Foam DAgger head (benchmarks/foam_dagger.sh): a model competent in `sim` (head alone
# 0.82) whose `real` loss is the foam's dynamics, the setting the method is for. 4 rounds × 15 episodes, MPPI λ = 10,
# seeds in parallel (≈ 10 GB each with the simulation replay). Records: benchmarks/results/adapt_foam_dagger_s{SEED}.json.
# Usage: SEEDS="0 1" bash benchmarks/foam_dagger_adapt.sh
# CKPT=… NAME=… adapt another model into runs/NAME_sS (session 20: NAME=adapt_foam_step CKPT=
# runs/head_on_bc_states_step128_lr1e-3_s0, the step-head model trained on single-step BC's DAgger labels).
# PRIOR=λ plans with prior weight λ instead of 10 (session 21). MPPI_SET="samples=192 iterations=3 …" overrides
# MPPIConfig fields of the `quadruped-cpu` planner (session 24: a 4× larger search).
set -euo pipefail
cd "$(dirname "$0")/.."
MPPI_FLAGS=(); for field in ${MPPI_SET:-}; do MPPI_FLAGS+=(--set "mppi.$field"); done
R=${R:-runs}; CKPT=${CKPT:-$R/q_foam_dagger1}; SIM=${SIM:-$R/quadruped_data_v2}; ROUNDS=${ROUNDS:-4}
for seed in ${SEEDS:-0 1}; do
  out=$R/${NAME:-adapt_foam_dagger}_s$seed
  { OMP_NUM_THREADS=1 simdist adapt foam --checkpoint "$CKPT" --rounds "$ROUNDS" --episodes-per-round 15 --grid all \
      --preset quadruped-cpu --prior-weight "${PRIOR:-10}" "${MPPI_FLAGS[@]}" --sim-data "$SIM" --seed "$seed" --out "$out" --quiet --json \
      > "$out.json" 2> "$out.log" && cp "$out/adapt_results.json" "benchmarks/results/${NAME:-adapt_foam_dagger}_s$seed.json"; } &
done
wait
