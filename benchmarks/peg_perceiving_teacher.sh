#!/usr/bin/env bash
# Peg Insertion: a world model pretrained from scratch on Alg. 2 data whose teacher acts on what the robot perceives
# (benchmarks/peg_perceiving_teacher_data.py; docs/results/peg-insertion.md, session 41), with the shipped model's
# recipe (benchmarks/peg_world_model.sh: the same chain of pretraining runs, stopped at STEPS), then its head alone
# and, unless PLANNER=0, its planner (`manipulation-prior`) on 40 `sim` and 40 `real` Narrow trials (seed 1, the
# protocol of peg_polish_eval.sh). PERCEIVE=always (session 41: 10,000 episodes, 35,000 steps; about 25 min of
# generation on 2 cores and 55 min of pretraining with 2 threads) or held (5,000 episodes, 20,000 steps).
# Resumable: finished stages are skipped, and each record is appended once.
# Records: benchmarks/results/peg_perceiving_teacher.jsonl.
set -euo pipefail
R=${R:-runs}
PERCEIVE=${PERCEIVE:-always}
EPISODES=${EPISODES:-10000}
STEPS=${STEPS:-35000}
PLANNER=${PLANNER:-1}
RECORDS=${RECORDS:-benchmarks/results/peg_perceiving_teacher.jsonl}
suffix=$([ "$PERCEIVE" = always ] && echo "" || echo "_$PERCEIVE")
data="$R/peg_teacher${suffix}_data" model="$R/peg_teacher$suffix"
if [ ! -f "$data/stats.json" ]; then
  rm -rf "$data"
  (cd benchmarks && python peg_perceiving_teacher_data.py --episodes "$EPISODES" --workers 2 --perceive "$PERCEIVE" \
    --out "../$data")
fi
if [ ! -f "$model/done_$STEPS" ]; then
  simdist pretrain --data "$data" --out "$model" --preset paper-manipulation --steps 8000 --quiet
  simdist pretrain --data "$data" --out "$model" --preset paper-manipulation --steps 20000 --quiet
  if [ "$STEPS" -gt 20000 ]; then
    simdist pretrain --data "$data" --out "$model" --preset paper-manipulation --steps 200000 --quiet \
      --set train.steps="$STEPS" --set train.checkpoint_every=5000 --set train.keep_checkpoints=true
  fi
  touch "$model/done_$STEPS"
fi
evaluate() {  # agent domain [extra evaluate options]
  local agent=$1 domain=$2 out="$model/eval_${1}_${2}_s1.json"
  shift 2
  if [ ! -f "$out" ]; then
    OMP_NUM_THREADS=1 simdist evaluate peg-insertion --checkpoint "$model" --domain "$domain" --grid narrow \
      --trials 40 --agent "$agent" --seed 1 --out "$out.tmp" --json --quiet "$@" > /dev/null
    mv "$out.tmp" "$out"
  fi
  [ -f "$out.recorded" ] && return 0
  python -c "import json
d = json.load(open('$out'))
print(json.dumps({'teacher_perceives': '$PERCEIVE', 'episodes': $EPISODES, 'steps': $STEPS, 'agent': '$agent',
                  'domain': '$domain', 'grid': 'narrow', 'seed': 1, 'trials': 40,
                  'success': d['grids']['narrow']['success_rate']}))" >> "$RECORDS"
  touch "$out.recorded"
}
evaluate policy sim & evaluate policy real & wait
if [ "$PLANNER" = 1 ]; then
  evaluate mppi sim --mppi manipulation-prior & evaluate mppi real --mppi manipulation-prior & wait
fi
