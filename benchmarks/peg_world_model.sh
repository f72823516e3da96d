#!/usr/bin/env bash
# Regenerates checkpoints/peg-insertion (docs/results/peg-insertion.md, "Peg Insertion"): 10,000 Alg. 2 episodes, then
# the chain of pretraining runs that produced the shipped model. Each `simdist pretrain` resumes if interrupted. About
# 20 min of generation on 2 cores; pretraining runs at ~6 steps/s on one core, ~11 with two threads. STEPS: where the
# last run stops inside the 200,000-step schedule (the shipped model: see its README).
set -euo pipefail
R=${R:-runs}
STEPS=${STEPS:-35000}
simdist generate peg-insertion --episodes 10000 --workers 2 --out "$R/peg_data" --quiet
# Session 2 trained 8,000 then 20,000 steps (a 20,000-step schedule); session 7 resumed it under the preset's longer
# schedule (200,000 steps, learning rate back up to 2e-4) and stopped at STEPS.
simdist pretrain --data "$R/peg_data" --out "$R/peg" --preset paper-manipulation --steps 8000
simdist pretrain --data "$R/peg_data" --out "$R/peg" --preset paper-manipulation --steps 20000
simdist pretrain --data "$R/peg_data" --out "$R/peg" --preset paper-manipulation --steps 200000 \
  --set train.steps="$STEPS" --set train.checkpoint_every=5000 --set train.keep_checkpoints=true
mkdir -p checkpoints/peg-insertion && cp "$R/peg"/{config.json,model.safetensors,metrics.jsonl} checkpoints/peg-insertion/
