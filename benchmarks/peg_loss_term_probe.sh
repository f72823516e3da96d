#!/usr/bin/env bash
# Peg Insertion (session 43): which of Eq. 2's terms leads the shipped head away from seating? 100 steps at a
# constant learning rate of 2e-6 from the shipped model (as `LR=2e-6 STOP=500 EVERY=100 ARMS=0 PLANNER=0 bash
# benchmarks/peg_tail_pretrain.sh`, which takes 0.25 to 0.00 in `sim` after 100 steps): the BC term alone, every
# term but BC (the head then learns nothing, but the latent it reads moves), and the BC term alone on successful
# episodes only; each head alone on the same 40 Narrow trials per domain (seed 1) via `simdist select`. Needs
# runs/peg_data (that script's first stage). Then the BC term's gradient into one parameter group at a time
# (`simdist finetune --trainable`, the same steps, rate and batch): the head alone, or the encoder and history alone.
# About 1 min per variant on 2 cores. Resumable; records are appended once.
# Records: benchmarks/results/peg_perturbation_probe.jsonl.
set -euo pipefail
source "$(dirname "$0")/eval_record.sh"
R=${R:-runs}
RECORDS=${RECORDS:-benchmarks/results/peg_perturbation_probe.jsonl}
record() {  # out, what was trained: each head alone in both domains, appended once
  peg_head_select_to "$RECORDS" "$1" "{\"model\": \"$1\", \"losses\": \"$2\", \"steps\": 100, \"lr\": 2e-6}"
}
probe() {  # name, then the --set loss./ --set train.arguments of the whole-model continuation
  local out="$R/peg_probe_$1"; shift
  [ -f "$out/.done" ] || { OMP_NUM_THREADS=2 simdist pretrain --data "$R/peg_data" --out "$out" \
    --preset paper-manipulation --steps 5000 --init-from checkpoints/peg-insertion --set train.steps=100 \
    --set train.lr=2e-6 --set train.lr_end=2e-6 --set train.warmup_steps=0 "$@" --quiet > "$out.log" 2>&1;
    touch "$out/.done"; }
  record "$out" "$*"
}
probe_group() {  # name, parameter groups that the BC term alone trains
  local out="$R/peg_probe_bc_$1"
  [ -f "$out/model.safetensors" ] || OMP_NUM_THREADS=2 simdist finetune --checkpoint checkpoints/peg-insertion \
    --data "$R/peg_data" --out "$out" --preset paper-manipulation --steps 100 --trainable "$2" --set loss.latent=0 \
    --set loss.bc=1 --set finetune.lr=2e-6 --set finetune.lr_end=2e-6 --set finetune.warmup_steps=0 --set finetune.batch_size=256 --quiet > "$out.log" 2>&1
  record "$out" "bc alone into $2"
}
probe bc_only --set loss.latent=0 --set loss.reward=0 --set loss.value=0
probe without_bc --set loss.bc=0
# the BC term alone on the expert's actions in successful episodes only (TrainConfig.bc_successful_only)
probe bc_only_successful --set loss.latent=0 --set loss.reward=0 --set loss.value=0 --set train.bc_successful_only=true
probe_group policy policy
probe_group encoder_history encoder,history
