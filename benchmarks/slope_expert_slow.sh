#!/usr/bin/env bash
# Session 16: where does the privileged expert fail at 0.1 m/s? Its slow episodes in the low-friction course data
# (feet μ 0.15–0.4 everywhere) succeed about half the time; this evaluates it, 10 trials at 0.1 m/s each, in `sim` with
# every foot at a fixed μ and in `real` on the μ = 0.19 panel (floor grippy). One core, ≈ 1 min per row.
set -euo pipefail
cd "$(dirname "$0")/.."
for physics in slope_sim_foot_mu0.17 slope_sim_foot_mu0.22 slope_sim_foot_mu0.3 slope_real_mu0.19; do
  domain=sim; [[ $physics == slope_real* ]] && domain=real
  printf '%s %s: ' "$domain" "$physics"
  OMP_NUM_THREADS=1 simdist expert eval slippery-slope --domain "$domain" --grid 0.1 --trials 10 \
    --physics "benchmarks/physics/$physics.json" --seed 0 --json --quiet | tail -n 1 |
    python -c "import json, sys; g = json.load(sys.stdin)['grids']['0.1']; print(g['success_rate'], g['mean_progress_m'])"
done
