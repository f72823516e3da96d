#!/usr/bin/env bash
# Alg. 1 on Table Leg from a checkpoint that seats legs in `sim` (session 30: runs/tl_noact_200k/step_080000, 6 / 40
# with its head alone). First how far the planner gets through the task's stages zero shot (MPPI, `sim` and `real`,
# Narrow grid, SEEDS × TRIALS, single-thread evaluations side by side), then `simdist adapt` (ROUNDS finetunes of the
# dynamics on all real data so far, M real episodes per round on the same Narrow initial conditions, the `cpu`
# finetune preset with half of each batch replayed from SIM), then the last round's model through the same staged
# `real` evaluation, so that a change short of success (grasps, carries, threads) shows. PRIOR is the planner's
# BC-chunk penalty λ (manipulation-prior: 1000; a smaller one lets the finetuned dynamics move the plan more).
# With PID set, that process (a running pretraining) is paused meanwhile.
#   CKPT=runs/tl_noact_200k/step_080000 PRIOR=100 PID=$(pgrep -f 'pretrain.*tl_noact_200k') bash benchmarks/table_leg_adapt.sh
# Tables: python benchmarks/stages_table.py benchmarks/results/table_leg_stages.jsonl --checkpoint tl_adapt; rounds:
# benchmarks/results/table_leg_adapt.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CKPT:?the pretrained checkpoint to adapt}"
SIM=${SIM:-runs/tl_data}; OUT=${OUT:-runs/tl_adapt_$(basename "$CKPT")_l${PRIOR:-1000}}
ROUNDS=${ROUNDS:-4}; M=${M:-20}; SEEDS=${SEEDS:-0 1}; TRIALS=${TRIALS:-10}; PRIOR=${PRIOR:-1000}
REC=${REC:-benchmarks/results/table_leg_stages.jsonl}; ZERO_SHOT_DOMAINS=${ZERO_SHOT_DOMAINS-sim real}
if [ -n "${PID:-}" ]; then trap 'kill -CONT "$PID" 2>/dev/null || true' EXIT; kill -STOP "$PID"; fi
stages() {  # CHECKPOINT DOMAIN
  for s in $SEEDS; do
    OMP_NUM_THREADS=1 python benchmarks/manipulation_stages.py --task table-leg --checkpoint "$1" --domain "$2" \
      --mppi manipulation-prior --set "prior_weight=$PRIOR" --grid narrow --trials "$TRIALS" --seed "$s" \
      --out "$REC" > /dev/null &
  done
  wait
}
for domain in $ZERO_SHOT_DOMAINS; do stages "$CKPT" "$domain"; done
simdist adapt table-leg --checkpoint "$CKPT" --rounds "$ROUNDS" --episodes-per-round "$M" --grid narrow \
  --preset cpu --mppi manipulation-prior --prior-weight "$PRIOR" --sim-data "$SIM" --out "$OUT" --json --quiet \
  | tail -n 1 > "$OUT.json"
python - "$OUT" "$CKPT" "$PRIOR" <<'PY'  # one record per run: successes and held-out latent error per round
import json, sys
out, ckpt, prior = sys.argv[1:]
d = json.load(open(out + ".json"))
rounds = [{k: v for k, v in r.items() if k != "initial_conditions"} for r in d["rounds"]]
rec = {"kind": "table_leg_adapt", "checkpoint": ckpt, "out": out, "mppi": "manipulation-prior",
       "prior_weight": float(prior), "finetune_preset": "cpu", "grid": "narrow", "real_minutes": d["real_minutes"],
       "rounds": rounds}
open("benchmarks/results/table_leg_adapt.jsonl", "a").write(json.dumps(rec) + "\n")
print("successes per round", [sum(r["successes"]) for r in rounds], "robot min", d["real_minutes"])
PY
stages "$OUT/round_$(printf %02d "$ROUNDS")/model" real
