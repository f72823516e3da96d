#!/usr/bin/env bash
# Session 19 probe, the other half of foam_latent_bc_probe.py's 2 × 2: SimDist's own head (head-only, exactly
# `simdist dagger`'s training: 5,000 steps, half of each batch replayed from runs/quadruped_data_v2) trained on the
# labels of the states single-step BC drove to (runs/dagger_bc_foam_sS/dagger_data, foam_bc_dagger.sh) instead of those
# its own DAgger round reached; then alone in `real` and `sim`, eval seeds 0 1 2 × 5 trials × 3 speeds.
# LR=x trains at learning rate x (decaying to x / 2) instead of the recipe's 1e-4, rows `head_on_bc_states_lrx_sS`;
# LABELS=own uses the head's own DAgger round (runs/dagger_cli_foam_sS) instead, rows `head_on_own_states_lrx_sS`;
# LABELS=step2 both rounds of foam_dagger_step_head.sh (runs/dagger_step_foam_sS); LABELS=padded BC's labels with
# every episode ending in 25 unlabelled repeats of its last step (benchmarks/pad_episode_ends.py, session 22). REPLAY=f: share of each batch
# replayed from the simulation data (default 0.5), rows `…_replayF_…`.
# WIDTH=w starts a fresh head with feed-forward width w (the shipped head: 2 layers, d 32, width 64, a 25-step chunk),
# rows `head_on_…_wW_…`. FIRST=f adds f × the first step's error to the BC term (LossConfig.bc_first_step), rows
# `head_on_…_firstF_…`. STEP=w adds a single-step MLP head of width w beside the kept chunk head (ModelConfig.
# policy_step_width; its action is the one deployed), rows `head_on_…_stepW_…`. BASE=dir starts from another model
# than checkpoints/quadruped-cpu (session 22: runs/q_height_offset), rows `…_on_BASENAME_…`. TAIL=1 trains on windows
# that start in each episode's last steps too (FinetuneConfig.tail_windows, session 23; the package's form of
# LABELS=padded), rows `head_on_…_tail_…`. Records: benchmarks/results/foam_bc_dagger.jsonl. ≈ 5 min of training on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/foam_bc_dagger.jsonl
LR=${LR:-1e-4}; LABELS=${LABELS:-bc}; BASE=${BASE:-checkpoints/quadruped-cpu}
case $LABELS in own) SRC=dagger_cli_foam ;; step2) SRC=dagger_step_foam ;; padded) SRC=dagger_bc_foam_padded ;; *) SRC=dagger_bc_foam ;; esac
DATA=$R/${SRC}_s$SEED/dagger_data; REPLAY=${REPLAY:-0.5}
WIDTH=${WIDTH:-0}; FRESH=()
[ "$WIDTH" = 0 ] || FRESH=(--set dagger.fresh_policy=true --set model.policy_ffn_dim="$WIDTH")
FIRST=${FIRST:-0}; STEP=${STEP:-0}
[ "$STEP" = 0 ] || FRESH+=(--set model.policy_step_width="$STEP")
TAIL=${TAIL:-0}; [ "$TAIL" = 0 ] || FRESH+=(--set dagger.tail_windows=true)
OUT=$R/head_on_${LABELS}_states$([ "$TAIL" = 0 ] || echo "_tail")$([ "$WIDTH" = 0 ] || echo "_w$WIDTH")$([ "$FIRST" = 0 ] || echo "_first$FIRST")$([ "$STEP" = 0 ] || echo "_step$STEP")$([ "$LR" = 1e-4 ] || echo "_lr$LR")$([ "$REPLAY" = 0.5 ] || echo "_replay$REPLAY")$([ "$BASE" = checkpoints/quadruped-cpu ] || echo "_on_$(basename "$BASE")")_s$SEED
TAG=$(basename "$OUT")
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$BASE" \
  --data "$DATA" --sim-data "$R/quadruped_data_v2" --sim-replay "$REPLAY" --out "$OUT" \
  --preset quadruped-cpu --trainable policy --set loss.latent=0 --set loss.reward=0 --set loss.value=0 \
  --set loss.bc=1 --set loss.bc_first_step="$FIRST" --steps 5000 --set finetune.batch_size=128 --set finetune.lr="$LR" --set finetune.lr_end="$(python -c "print($LR / 2)")" --set finetune.warmup_steps=100 \
  --set finetune.seed="$SEED" "${FRESH[@]}" --quiet
for seed in ${SEEDS:-0 1 2}; do
  for domain in real sim; do
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"$domain\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT" --domain "$domain" --grid all --trials 5 --agent policy --seed "$seed" --json
  done
done
