#!/usr/bin/env bash
# Peg Insertion (session 42): do the regression BC heads gain from windows that start in each episode's last T steps
# (`bc_head_refit.py --tail-windows`), as the diffusion head does? Refits the head alone (3,000 steps, the
# paper-manipulation preset's batch and learning rate) of the shipped model on 2,000 fresh Alg. 2 episodes of its
# recipe, with and without tail windows, and of the perceiving-teacher model (benchmarks/peg_perceiving_teacher.sh) on
# its own data with them; each head alone on 40 Narrow trials per domain (seed 1). About 3 min per refit with 2
# threads and 1 min per evaluation pair; the data 4 min on 2 cores. Resumable; records are appended once.
# Records: benchmarks/results/peg_tail_refit.jsonl.
set -euo pipefail
R=${R:-runs}
RECORDS=${RECORDS:-benchmarks/results/peg_tail_refit.jsonl}
[ -f "$R/peg_data2k/stats.json" ] || { rm -rf "$R/peg_data2k";
  simdist generate peg-insertion --episodes 2000 --workers 2 --out "$R/peg_data2k" --quiet; }
refit() {  # checkpoint data out tail(0|1)
  [ -f "$3/model.safetensors" ] && return 0
  OMP_NUM_THREADS=2 python benchmarks/bc_head_refit.py --checkpoint "$1" --data "$2" --out "$3" --steps 3000 \
    --preset paper-manipulation $([ "$4" = 1 ] && echo --tail-windows)
}
evaluate() {  # model domain from tail
  local out="$1/eval_policy_$2_s1.json"
  [ -f "$out" ] || OMP_NUM_THREADS=1 simdist evaluate peg-insertion --checkpoint "$1" --domain "$2" --grid narrow \
    --trials 40 --agent policy --seed 1 --out "$out" --json --quiet > /dev/null
  [ -f "$out.recorded" ] && return 0
  python -c "import json
d = json.load(open('$out'))
print(json.dumps({'model': '$1', 'refit_from': '$3', 'tail_windows': bool($4), 'refit_steps': 3000, 'agent': 'policy',
                  'domain': '$2', 'grid': 'narrow', 'seed': 1, 'trials': 40,
                  'success': d['grids']['narrow']['success_rate']}))" >> "$RECORDS"
  touch "$out.recorded"
}
run() {  # checkpoint data out tail
  refit "$@"
  evaluate "$3" sim "$1" "$4" & evaluate "$3" real "$1" "$4" & wait
}
run checkpoints/peg-insertion "$R/peg_data2k" "$R/peg_shipped_tail" 1
run checkpoints/peg-insertion "$R/peg_data2k" "$R/peg_shipped_notail" 0
run "$R/peg_teacher" "$R/peg_teacher_data" "$R/peg_teacher_tail" 1
