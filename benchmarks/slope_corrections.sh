#!/bin/bash
# Alg. 1 with operator corrections on Slippery Slope at panel μ = 0.19 (session 14). The low-friction model
# (runs/q_lowfric) drives; after each round's 15 evaluation trials it runs K more episodes in which the stand-in
# operator (the privileged expert on true state) takes over at random moments (RATE per second, TAKEOVER_S each),
# and the finetune trains the dynamics and the BC head (Eq. 2 BC term on the operator's steps and on the replayed
# simulation windows). Compare: plain Alg. 1 0.58 → 0.51–0.62 (adapt_lowfric_mu019_l10_s*), privileged upper
# bound with the BC head 0.76 (slope_upper_bound.sh). Records: benchmarks/results/adapt_corr_mu019_*.json.
# SEEDS run in parallel, one core each (≈ 9 GB of memory each: the simulation replay).
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-"0 1"}
ROUNDS=${ROUNDS:-3}
K=${K:-15}
STEPS=${STEPS:-2000}
RATE=${RATE:-0.5}
TAKEOVER_S=${TAKEOVER_S:-1.0}
NAME=${NAME:-adapt_corr_mu019}
ANCHOR=${ANCHOR:-0}  # FinetuneConfig.policy_anchor; session 14 also ran ANCHOR=30 NAME=adapt_corr_anchor30_mu019
for seed in $SEEDS; do
  out=runs/${NAME}_s$seed
  OMP_NUM_THREADS=1 simdist adapt slippery-slope --checkpoint runs/q_lowfric --rounds "$ROUNDS" \
    --episodes-per-round 15 --grid all --preset quadruped-cpu --prior-weight 10 \
    --physics benchmarks/physics/slope_real_mu0.19.json --sim-data runs/quadruped_data_v3 --seed "$seed" \
    --finetune-steps "$STEPS" --corrected-episodes "$K" --takeover-rate "$RATE" --takeover-s "$TAKEOVER_S" \
    --set finetune.policy_anchor="$ANCHOR" \
    --out "$out" --quiet --json > "runs/${NAME}_s$seed.json" 2> "runs/${NAME}_s$seed.log" &&
    cp "$out/adapt_results.json" "benchmarks/results/${NAME}_s$seed.json" &
done
wait
