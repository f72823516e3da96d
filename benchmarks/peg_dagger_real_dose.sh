#!/usr/bin/env bash
# Peg Insertion (session 44): a small dose of DAgger labels gathered where `real` differs. In `sim` a dose of the
# expert's labels on the shipped head's own states (100 BC steps at 4e-7) lifted the head 0.25 -> 0.43 while `real`
# fell 0.33 -> 0.10 (benchmarks/peg_bc_phase_probe.py --name dagger200). Here the head drives, and the privileged
# expert labels, in `sim` with `real`'s physics (benchmarks/physics/peg_sim_as_real.json: every field where the two
# domains' defaults differ; the shipped head seats 0.325 there, as in `real`, on the same 40 trials): the stand-in for
# an operator correcting the robot (`simdist.adaptation.corrections`). Then the same 100 steps at 4e-7 and 2e-6, each head on
# the same 40 Narrow trials per domain (seed 1). About 5 min of collection and 1 min per probe on 2 cores.
# Record: benchmarks/results/peg_bc_phase_probe.jsonl (data runs/peg_dagger44_asreal200/dagger_data).
set -euo pipefail
R=${R:-runs}
OUT="$R/peg_dagger44_asreal200"
if [ ! -f "$OUT/dagger_data/.collected" ]; then
  OMP_NUM_THREADS=1 simdist dagger peg-insertion --checkpoint checkpoints/peg-insertion --sim-data "$R/peg_data" \
    --rounds 1 --episodes-per-grid 200 --grid narrow --physics benchmarks/physics/peg_sim_as_real.json \
    --set dagger.steps=1 --set dagger.sensor_noise_steps=0 --set dagger.eval_episodes_per_grid=0 --set dagger.seed=200 --workers 2 \
    --out "$OUT" --json --quiet > "$OUT.log"
  touch "$OUT/dagger_data/.collected"
fi
for lr in 4e-7 2e-6; do
  OMP_NUM_THREADS=2 python benchmarks/peg_bc_phase_probe.py --data "$OUT/dagger_data" --name dagger_asreal200 \
    --variants all --lr "$lr"
done
