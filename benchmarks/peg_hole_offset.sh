#!/bin/bash
# Peg Insertion: the planner's success when the hole's estimate is shifted by a constant offset (the physics field
# hole_estimate_offset_{x,y}_m), `sim` and `real`, 20 Narrow trials x seeds 0 and 1 per cell, one thread per job.
# Finds the shipped model's systematic aim error (docs/results/peg-insertion.md, session 39).
# CKPT: the model (default the shipped one); SEEDS, TRIALS; OUT: the records file;
# JOBS: "DOMAIN:PHYSICS_FILE_OR_none ..." (default: session 39's shipped-model cells).
# Appends one row per run to OUT (default benchmarks/results/peg_hole_estimate_offset.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
CKPT=${CKPT:-checkpoints/peg-insertion}
P=benchmarks/physics
JOBS=${JOBS:-"sim:none sim:$P/peg_hole_offset.json sim:$P/peg_hole_offset_x.json sim:$P/peg_hole_offset_y.json
real:none real:$P/peg_hole_offset.json real:$P/peg_real_no_bias.json real:$P/peg_real_hole_offset.json
real:$P/peg_real_hole_offset_opposite.json sim:$P/peg_hole_offset_half.json sim:$P/peg_hole_offset_1p5.json
sim:$P/peg_hole_offset_2x.json real:$P/peg_hole_offset_1p5.json"}
OUT=${OUT:-benchmarks/results/peg_hole_estimate_offset.jsonl}
SEEDS=${SEEDS:-0 1}
TRIALS=${TRIALS:-20}
tmp=$(mktemp -d)
for job in $JOBS; do
  domain=${job%%:*}; physics=${job#*:}
  for seed in $SEEDS; do
    args=(); [ "$physics" != none ] && args=(--physics "$physics")
    OMP_NUM_THREADS=1 simdist evaluate peg-insertion --checkpoint "$CKPT" --domain "$domain" --grid narrow \
      --trials "$TRIALS" --mppi manipulation-prior --seed "$seed" "${args[@]}" --out "$tmp/eval.json" --quiet
    python - "$tmp/eval.json" "$CKPT" "$domain" "$physics" "$seed" "$TRIALS" >> "$OUT" <<'PY'
import json, sys
path, ckpt, domain, physics, seed, trials = sys.argv[1:]
r = json.load(open(path))
overrides = json.load(open(physics)) if physics != "none" else {}
print(json.dumps({"checkpoint": ckpt, "agent": "manipulation-prior", "domain": domain, "grid": "narrow",
                  "physics": overrides, "seed": int(seed), "trials": int(trials), "success_rate": r["success_rate"],
                  "mean_time_s": r["mean_time_s"]}))
PY
  done
done
