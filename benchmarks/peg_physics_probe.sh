#!/usr/bin/env bash
# What caps the shipped Peg Insertion model in `sim`? The planner (`manipulation-prior`) with one physics change at a
# time (benchmarks/physics/VARIANT.json): the hole's clearance widened from 0.8 mm to 2 or 4 mm
# (peg_clearance_0.002, peg_clearance_0.004), or pads 5-10x stiffer in rotation than `sim`'s, so that the peg hardly
# rotates in the fingers (peg_rigid_pads: 400 N m/rad; 2,000 makes the simulation unstable at the 4 ms timestep).
# Narrow grid, 20 trials per seed, one JSON line per evaluation (with `variant` and `seed`) appended to
# benchmarks/results/peg_physics_probe.jsonl. The unchanged model's rows are session 9's (peg_sim_eval_2seeds.jsonl,
# peg_real_gaps_planner.jsonl). Session 34:
#   SEEDS="0 1" bash benchmarks/peg_physics_probe.sh
#   VARIANTS=peg_rigid_pads DOMAINS=sim SEEDS="0 1" bash benchmarks/peg_physics_probe.sh
# With STAGES=1 each evaluation is instead `manipulation_stages.py` (how far each episode gets, and the peg's lateral
# offset, depth and tilt at its closest held step), appended to benchmarks/results/peg_physics_probe_stages.jsonl:
#   STAGES=1 SEEDS=0 VARIANTS=peg_clearance_0.004 bash benchmarks/peg_physics_probe.sh
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/..}"
SEEDS=${SEEDS:-0 1}; VARIANTS=${VARIANTS:-peg_clearance_0.002 peg_clearance_0.004}; DOMAINS=${DOMAINS:-sim real}
REC=${REC:-benchmarks/results/peg_physics_probe.jsonl}
STAGES_REC=${STAGES_REC:-benchmarks/results/peg_physics_probe_stages.jsonl}
CK=checkpoints/peg-insertion
SCRATCH=$(mktemp -d)  # `simdist evaluate --out`: the shipped checkpoint folder stays as it is
tag() {  # the record's provenance, added to the last JSON line on stdin
  python -c "import json, sys; r = json.loads(sys.stdin.read().splitlines()[-1]); r.update(checkpoint=
'checkpoints/peg-insertion', variant='$1', physics='benchmarks/physics/$1.json', seed=$2, mppi='manipulation-prior');
print(json.dumps(r))"
}
for v in $VARIANTS; do for d in $DOMAINS; do for s in $SEEDS; do
  if [ -n "${STAGES:-}" ]; then
    python benchmarks/manipulation_stages.py --checkpoint "$CK" --domain "$d" --grid narrow --trials 20 --seed "$s" \
      --mppi manipulation-prior --physics "benchmarks/physics/$v.json" | tag "$v" "$s" >> "$STAGES_REC"
  else
    simdist evaluate peg-insertion --checkpoint "$CK" --domain "$d" --grid narrow --trials 20 --mppi manipulation-prior \
      --seed "$s" --physics "benchmarks/physics/$v.json" --out "$SCRATCH/eval_info.json" --json --quiet |
      tag "$v" "$s" >> "$REC"
  fi
done; done; done
