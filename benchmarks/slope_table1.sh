#!/bin/bash
# Table I ablations on Slippery Slope (session 13), as session 6 ran them on Foam: each variant pretrained from
# scratch on the Slippery Slope course data (runs/slope_course_data: 385k Alg. 2 transitions, from
# benchmarks/quadruped_world_model.sh) for STEPS steps of the `quadruped-cpu` preset, then its planner (MPPI λ = 10)
# evaluated in `sim`, 10 trials at each of the 3 speeds. Expert-only data: the clean expert alone on the course, used
# up to the same volume. Two processes of three variants share one --out; the last call gathers the table.
# Record: benchmarks/results/ablate_slope_table1.json. About 2 core-hours at STEPS=10000.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}
STEPS=${STEPS:-10000}
OUT=$R/tableI_slope
[ -d "$R/slope_course_expert_data" ] || OMP_NUM_THREADS=1 python -m simdist.tasks.quadruped.generate_batched \
  --task slippery-slope --scene course --expert-only --out "$R/slope_course_expert_data" --transitions 800000 \
  --envs 64 --seed 5
ablate() {
  OMP_NUM_THREADS=1 simdist ablate slippery-slope --sim-data "$R/slope_course_data" --out "$OUT" --variants "$1" \
    --expert-data "$R/slope_course_expert_data" --preset quadruped-cpu --steps "$STEPS" --trials 10 \
    --prior-weight 10 --quiet --json
}
ablate simdist,data-10,mlp-heads > "$OUT.a.log" 2>&1 &
ablate data-50,expert-only,reconstruction > "$OUT.b.log" 2>&1 &
wait
ablate simdist,data-50,data-10,expert-only,mlp-heads,reconstruction | tail -n 1 > benchmarks/results/ablate_slope_table1.json
