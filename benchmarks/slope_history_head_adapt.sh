#!/usr/bin/env bash
# Session 15: Alg. 1 on the low-friction model with the history-aware BC head (benchmarks/slope_history_head.sh) at
# panel μ = 0.19: the session-12 command, 4 rounds × 15 episodes, seeds in parallel on one core each (≈ 9 GB each
# for the simulation replay). Records: benchmarks/results/adapt_phist_mu019_s{SEED}.json.
# Usage: CKPT=runs/q_lowfric_phist_bc10k SEEDS="0 1" bash benchmarks/slope_history_head_adapt.sh
#        (a looser planner prior: PRIOR=5 NAME=adapt_phist_l5_mu019 …; the paper's 30 robot minutes:
#        ROUNDS=16 SEEDS="0 1 2", session 15's *_r16.json records)
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; CKPT=${CKPT:-$R/q_lowfric_phist_bc10k}; SEEDS=${SEEDS:-"0 1"}; ROUNDS=${ROUNDS:-4}; PRIOR=${PRIOR:-10}
NAME=${NAME:-adapt_phist_mu019}
SUFFIX=""; [ "$ROUNDS" = 4 ] || SUFFIX="_r$ROUNDS"  # ROUNDS=16 resumes the 4-round runs: records *_r16.json
for seed in $SEEDS; do
  OMP_NUM_THREADS=1 simdist adapt slippery-slope --checkpoint "$CKPT" --rounds "$ROUNDS" --episodes-per-round 15 \
    --grid all --preset quadruped-cpu --prior-weight "$PRIOR" --physics benchmarks/physics/slope_real_mu0.19.json \
    --sim-data "$R/quadruped_data_v3" --seed "$seed" --out "$R/${NAME}_s$seed" --quiet --json \
    > "$R/${NAME}_s$seed.json" 2> "$R/${NAME}_s$seed.log" &&
    cp "$R/${NAME}_s$seed/adapt_results.json" "benchmarks/results/${NAME}_s$seed$SUFFIX.json" &
done
wait
