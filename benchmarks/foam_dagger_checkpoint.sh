#!/usr/bin/env bash
# Regenerates checkpoints/quadruped-foam-dagger (session 23) from the shipped checkpoints/quadruped-cpu:
#   1. the simulation data (benchmarks/quadruped_data_v2.sh, ≈ 12 min);
#   2. 3,000 more pretraining steps with a 3 cm height-scan offset on the inputs (ModelConfig.input_offset_std; the
#      foam's sinking feet make the height scan read the body lower, docs/results/foam.md session 22), ≈ 5 min;
#   3. single-step BC and its DAgger round in `sim` (benchmarks/foam_bc_dagger.sh, seed 0), whose labels are round
#      1 of the head's DAgger; ≈ 10 min;
#   4. a second DAgger round driven by SimDist's own single-step head, tail windows (benchmarks/foam_offset_dagger.sh,
#      seed 0), ≈ 25 min; then the model is copied into checkpoints/.
# Floating-point results differ between CPU types (docs/results/foam.md, session 22), so a rebuild on another machine is
# another sample of the recipe, not this checkpoint bit for bit. Usage: R=runs bash benchmarks/foam_dagger_checkpoint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; OUT=checkpoints/quadruped-foam-dagger
R="$R" bash benchmarks/quadruped_data_v2.sh
[ -f "$R/q_height_offset/model.safetensors" ] || simdist pretrain --data "$R/quadruped_data_v2" \
  --out "$R/q_height_offset" --preset quadruped-cpu --init-from checkpoints/quadruped-cpu --steps 3000 \
  --set model.input_offset_group=height --set model.input_offset_std=0.03 --quiet
R="$R" SEED=0 SEEDS=" " bash benchmarks/foam_bc_dagger.sh
R="$R" SEED=0 ROUNDS=2 SEEDS=" " bash benchmarks/foam_offset_dagger.sh
mkdir -p "$OUT"
cp "$R/dagger_offset_foam_s0/model/model.safetensors" "$R/dagger_offset_foam_s0/model/config.json" "$OUT/"
cp "$R/dagger_offset_foam_s0/round_02/metrics.jsonl" "$OUT/"
echo "wrote $OUT"
