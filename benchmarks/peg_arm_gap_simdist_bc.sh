#!/usr/bin/env bash
# Peg Insertion (session 45): SimDist+BC in the moderate arm-gap `real` variant (benchmarks/peg_arm_gap_adapt.sh's),
# where Alg. 1, which keeps the head frozen, fits the arm and seats no more. Same budget and recipe (80 Narrow episodes
# after 20 teleoperated demonstrations collected in the same physics, evaluation every 20, 1,000-step finetunes, the
# planner `manipulation-prior`), the BC head finetuned on the demonstrations too. Seeds side by side on one core
# each: about 25 min on 2 cores. Records: benchmarks/results/compare_peg_armgap_${GAP}_simdist_bc_s{0,1}.json.
set -euo pipefail
GAP=${GAP:-moderate}
for seed in ${SEEDS:-0 1}; do
  out=runs/compare_peg_armgap_${GAP}_s$seed
  (OMP_NUM_THREADS=1 simdist compare peg-insertion --methods simdist_bc --seeds "$seed," --sim-data runs/peg_heldout \
     --checkpoint checkpoints/peg-insertion --mppi manipulation-prior --finetune-steps 1000 --budget 80 \
     --episodes-per-round 20 --grid narrow --physics "benchmarks/physics/peg_real_arm_only_$GAP.json" --out "$out" \
     --quiet > "$out.log" 2>&1 \
   && cp "$out/compare.json" "benchmarks/results/compare_peg_armgap_${GAP}_simdist_bc_s$seed.json") &
done
wait
