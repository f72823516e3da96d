#!/usr/bin/env bash
# Session 24: does MPPI lose the slow (0.2 m/s) Foam walk that the head alone keeps? (session 23,
# quadruped-foam-dagger: the head alone 0.80 at 0.2 m/s over 15 trials; MPPI λ = 10 about 0.5 there over Alg. 1's
# rounds; λ = 50 the same.) At λ ≥ 10 every Gaussian candidate pays a prior penalty of tens, so the elites are the noised
# head chunks and the executed action is the head's plus the mean of the small perturbations the model prefers. Each VARIANT changes one MPPIConfig field of `quadruped-cpu` at λ = PRIOR (default 10): policy_noise_std=0.05
# is the preset itself, policy_noise_std=0 keeps only the second iteration's Gaussians near the head, iterations=1
# executes the mean of the noised head chunks, min_std=0.01 narrows the second iteration.
# Eval seeds SEEDS (default 0 1 2) × TRIALS (default 5) trials on GRID (default all: 3 speeds) in `real`, two
# evaluations at a time; GRID=0.2 TRIALS=15 counts the slow walk alone.
# Records: benchmarks/results/foam_planner_slow_walk.jsonl ("mppi_set" names the change). ≈ 2 min per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
CKPT=${CKPT:-checkpoints/quadruped-foam-dagger}; PRIOR=${PRIOR:-10}
GRID=${GRID:-all}; TRIALS=${TRIALS:-5}; REC=benchmarks/results/foam_planner_slow_walk.jsonl
ev() {  # SEED MPPI_SET
  evaluate_to "$REC" "{\"model\": \"$(basename "$CKPT")\", \"prior_weight\": $PRIOR, \"mppi_set\": \"$2\", \"seed\": $1}" \
    simdist evaluate foam --checkpoint "$CKPT" --domain real --grid "$GRID" --trials "$TRIALS" --agent mppi --mppi quadruped-cpu \
    --prior-weight "$PRIOR" --set "mppi.$2" --seed "$1" --json
}
for variant in ${VARIANTS:-policy_noise_std=0 policy_noise_std=0.02 warm_start=false iterations=1}; do
  for seed in ${SEEDS:-0 1 2}; do
    ev "$seed" "$variant" &
    [ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
  done
done
wait
