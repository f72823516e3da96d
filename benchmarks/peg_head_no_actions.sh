#!/usr/bin/env bash
# Session 28: does Peg Insertion's BC head copy its past actions, as Table Leg's does (sessions 25-27)? Peg's
# closed-loop success swings between nearby checkpoints (0.3 at 35k steps, 0.0 at 45k-60k) as Table Leg's did with
# the paper's context. On 2,000 fresh Alg. 2 episodes: the copycat check on the shipped model, then its BC head
# retrained on the frozen world model for STEPS steps twice, with and without the past actions in its context
# (`policy_sees_actions`), and a third time seeing them in half of the windows (`policy_action_dropout=0.5`); all
# four evaluated by stages, Narrow grid, `sim` and `real`, BC head and MPPI.
# Usage: bash benchmarks/peg_head_no_actions.sh   (≈ 10 min of data, 2 × ≈ 10 min of training, ≈ 50 min of evaluation)
# Records: benchmarks/results/peg_head_no_actions.jsonl (stages), benchmarks/results/bc_history_reliance.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; STEPS=${STEPS:-5000}; BASE=${BASE:-checkpoints/peg-insertion}; DATA=$R/peg_data_s28
REC=benchmarks/results/peg_head_no_actions.jsonl
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
[ -f "$DATA/stats.json" ] || simdist generate peg-insertion --episodes 2000 --workers 1 --seed 28 --out "$DATA" --quiet
head_only() {  # OUT MODEL_FIELD=VALUE
  [ -f "$1/model.safetensors" ] || simdist finetune --checkpoint "$BASE" --data "$DATA" --out "$1" --preset cpu \
    --trainable policy --set loss.latent=0 --set loss.bc=1 --sim-replay 0 --steps "$STEPS" --set finetune.batch_size=256 \
    --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 --set finetune.warmup_steps=100 --set finetune.val_every=1000 \
    --set "model.$2" --quiet
}
head_only "$R/peg_head_actions" policy_sees_actions=true  # the control: the same retraining, the paper's context
head_only "$R/peg_head_noact" policy_sees_actions=false
head_only "$R/peg_head_actdrop" policy_action_dropout=0.5
python benchmarks/bc_history_reliance.py --data "$DATA" \
  --checkpoints "$BASE" "$R/peg_head_actions" "$R/peg_head_noact" "$R/peg_head_actdrop" \
  --out benchmarks/results/bc_history_reliance.jsonl
for ckpt in "$BASE" "$R/peg_head_actions" "$R/peg_head_noact" "$R/peg_head_actdrop"; do
  for domain in sim real; do
    for agent in policy manipulation-prior; do
      MPPI=(); [ "$agent" = policy ] || MPPI=(--mppi "$agent")
      for seed in 0 1; do
        python benchmarks/manipulation_stages.py --checkpoint "$ckpt" --domain "$domain" --grid narrow --trials 10 \
          --seed "$seed" "${MPPI[@]}" --out "$REC"
      done
    done
  done
done
python benchmarks/stages_table.py "$REC"
