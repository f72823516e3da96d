#!/usr/bin/env bash
# Session 18: DAgger for Peg Insertion's BC head. Session 9 found no sim-to-real loss on Peg: the shipped model scores
# the same in `sim` and `real`, so what caps it is its skill in `sim`. `simdist dagger` lets its head drive in `sim`
# (Narrow and Wide grids, 60 episodes each per round, 2 rounds) while the scripted privileged expert, which reacts to
# the state it is in (a missed grasp is re-tried), labels every step; the head alone is retrained on the labels with
# half of each batch replayed from 1,000 fresh Alg. 2 episodes. Peg documents no sensor noise: no noise stage.
# Then head alone and MPPI (`manipulation-prior`), Narrow, 20 trials, in `sim` and `real`, pretrained and DAgger.
# Records: benchmarks/results/peg_dagger.jsonl. ≈ 15 min of generation, 2 × (3 min + 8 min) of DAgger, 8 evaluations.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/peg-insertion}; SIM=${SIM:-$R/peg_sim1k}; OUT=${OUT:-$R/dagger_peg}
REC=benchmarks/results/peg_dagger.jsonl
[ -f "$SIM/stats.json" ] || OMP_NUM_THREADS=1 simdist generate peg-insertion --episodes 1000 --workers "${GEN_WORKERS:-2}" --seed 7 \
  --out "$SIM" --quiet
OMP_NUM_THREADS=1 simdist dagger peg-insertion --checkpoint "$CKPT" --sim-data "$SIM" --rounds "${ROUNDS:-2}" \
  --episodes-per-grid 60 --workers 2 --out "$OUT" --json --quiet | tail -n 1 > "$OUT.json"
python -c "import json; d = json.load(open('$OUT.json')); d.update(kind='dagger_run'); print(json.dumps(d))" >> "$REC"
ev() {  # MODEL_TAG CHECKPOINT DOMAIN AGENT
  evaluate_to "$REC" "{\"model\": \"$1\", \"domain\": \"$3\", \"agent\": \"$4\", \"seed\": 0}" \
    simdist evaluate peg-insertion --checkpoint "$2" --domain "$3" --grid narrow --trials 20 --agent "$4" \
    --mppi manipulation-prior --seed 0 --json
}
for domain in sim real; do
  for agent in policy mppi; do
    ev dagger_peg "$OUT/model" "$domain" "$agent" & ev peg-insertion "$CKPT" "$domain" "$agent"; wait
  done
done
