#!/usr/bin/env bash
# The paper's ablations on the example task (docs/results/point-mass.md, "Point mass"): Fig. 10 (unfreeze the encoder or
# the value during Alg. 1, 2 seeds × 4 rounds) on the model of point_mass_example.sh, then Table I (pretrain each
# variant, 20 `sim` trials) with two replicates. Needs $R/point_mass_example from point_mass_example.sh. About 20 + 2 ×
# 12 minutes on 2 cores. Records: benchmarks/results/ablate_point_mass_{fig10,table1_s0,table1_s1}.json.
set -euo pipefail
R=${R:-runs}
export SIMDIST_TASK_MODULES=examples/point_mass/task.py
DATA="$R/point_mass_example/sim_data"
simdist ablate point-mass --sim-data "$DATA" --out "$R/ablate_point_mass" \
  --variants dynamics-only,unfreeze-encoder,unfreeze-value --checkpoint "$R/point_mass_example/pretrained" \
  --rounds 4 --finetune-steps 2000 --seeds 2
cp "$R/ablate_point_mass/finetune_ablations.json" benchmarks/results/ablate_point_mass_fig10.json
for seed in 0 1; do
  simdist ablate point-mass --sim-data "$DATA" --out "$R/ablate_point_mass_t1_s$seed" --preset cpu --trials 20 \
    --variants simdist,data-50,data-10,expert-only,mlp-heads,reconstruction --seed "$seed"
  cp "$R/ablate_point_mass_t1_s$seed/ablations.json" "benchmarks/results/ablate_point_mass_table1_s$seed.json"
done
