#!/usr/bin/env bash
# Generates $R/quadruped_data_v2 (skipped if it exists): 1.95 M Alg. 2 transitions on the training terrain (two
# chunks into one dataset) and 0.77 M on the two courses, merged. ≈ 12 min on an idle 2-core machine, one core used.
# Used by benchmarks/quadruped_world_model.sh and benchmarks/slope_low_friction_pretrain.sh.
set -euo pipefail
R=${R:-runs}
[ -d "$R/quadruped_data_v2" ] && exit 0
gen() { OMP_NUM_THREADS=1 python -m simdist.tasks.quadruped.generate_batched --envs 64 "$@"; }
gen --task foam --out "$R/quadruped_data_v1" --transitions 1000000 --seed 0
gen --task foam --out "$R/quadruped_data_v1" --transitions 1000000 --seed 1
gen --task foam --scene course --out "$R/foam_course_data" --transitions 400000 --seed 2
gen --task slippery-slope --scene course --out "$R/slope_course_data" --transitions 400000 --seed 3
simdist merge "$R/quadruped_data_v1" "$R/foam_course_data" "$R/slope_course_data" --out "$R/quadruped_data_v2"
