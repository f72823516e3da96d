# Sourced by the benchmark scripts that append `simdist evaluate` results to a records file.
# evaluate_to RECORD TAG_JSON simdist evaluate … --json
#   runs the evaluation on one core and appends its JSON result, with TAG_JSON's fields and the command, to RECORD.
evaluate_to() {
  local record=$1 tag=$2
  shift 2
  OMP_NUM_THREADS=1 "$@" --quiet | tail -n 1 | TAG="$tag" CMD="$*" python -c \
    "import json, os, sys; d = json.load(sys.stdin); d.update(json.loads(os.environ['TAG']), command=os.environ['CMD']); print(json.dumps(d))" \
    >> "$record"
}

# slope_mu019_to RECORD TAG_FIELDS CHECKPOINT "AGENTS" "SEEDS"
#   Slippery Slope in `real` at panel μ = 0.19, 5 trials × 3 speeds, with MPPI `quadruped-cpu` (λ = 10) and/or the BC
#   head alone (AGENTS: "policy mppi"), one row per agent and seed; TAG_FIELDS are extra JSON fields, e.g. '"model": "x"'.
slope_mu019_to() {
  local record=$1 fields=$2 checkpoint=$3 agents=$4 seeds=$5 agent seed
  for seed in $seeds; do
    for agent in $agents; do
      evaluate_to "$record" "{$fields, \"domain\": \"real\", \"physics\": \"slope_real_mu0.19\", \"agent\": \"$agent\", \"seed\": $seed}" \
        simdist evaluate slippery-slope --checkpoint "$checkpoint" --domain real --grid all --trials 5 --agent "$agent" \
        --mppi quadruped-cpu --prior-weight 10 --physics benchmarks/physics/slope_real_mu0.19.json --seed "$seed" --json
    done
  done
}

# dagger_to RECORD OUT simdist dagger TASK … (without --out, --json, --quiet)
#   unless OUT holds a finished run: runs it into OUT on one core per process, keeps its JSON result in OUT.json and
#   appends it to RECORD as a `dagger_run` row named after OUT.
dagger_to() {
  local record=$1 out=$2
  shift 2
  [ -f "$out/dagger_results.json" ] && return 0
  OMP_NUM_THREADS=1 "$@" --out "$out" --json --quiet | tail -n 1 > "$out.json"
  python -c "import json; d = json.load(open('$out.json')); d.update(kind='dagger_run', model='$(basename "$out")'); print(json.dumps(d))" >> "$record"
}

# peg_head_select_to RECORD RUN TAG_JSON
#   the head alone of the checkpoint RUN on 40 Narrow Peg Insertion trials per domain (seed 1) via `simdist select`,
#   kept in RUN/select_{sim,real}.json; appends each domain's row (TAG_JSON's fields, then agent, domain, grid, seed,
#   trials and success) to RECORD once.
peg_head_select_to() {
  local record=$1 run=$2 tag=$3 domain result
  for domain in sim real; do
    result="$run/select_$domain.json"
    [ -f "$result" ] || simdist select peg-insertion "$run" --grid narrow --trials 40 --seed 1 --domain "$domain" \
      --out "$result" --quiet > /dev/null
    [ -f "$result.recorded" ] && continue
    TAG="$tag" DOMAIN="$domain" RESULT="$result" python -c "import json, os
d = json.load(open(os.environ['RESULT']))
print(json.dumps({**json.loads(os.environ['TAG']), 'agent': 'policy', 'domain': os.environ['DOMAIN'], 'grid': 'narrow',
                  'seed': 1, 'trials': 40, 'success': d['best_success']}))" >> "$record"
    touch "$result.recorded"
  done
}

# evaluate_once_to RECORD OUT TAG_JSON simdist evaluate TASK … --grid G (without --out, --json, --quiet)
#   unless OUT exists, evaluates into OUT on one core; appends TAG_JSON's fields with the grid's trials, success rate
#   and 95 % interval to RECORD once (OUT.recorded marks it), so that a rerun neither repeats trials nor rows.
evaluate_once_to() {
  local record=$1 out=$2 tag=$3
  shift 3
  [ -f "$out" ] || OMP_NUM_THREADS=1 "$@" --out "$out" --quiet > /dev/null
  [ -f "$out.recorded" ] && return 0
  TAG="$tag" OUT="$out" python -c "import json, os
(g,) = json.load(open(os.environ['OUT']))['grids'].values()
print(json.dumps({**json.loads(os.environ['TAG']), 'trials': g['trials'], 'success_rate': g['success_rate'],
                  'success_ci95': g['success_ci95']}))" >> "$record"
  touch "$out.recorded"
}

# peg_alg1_to RECORD RUN OUT SEED [simdist adapt options…]
#   session 38's Peg Insertion Alg. 1 recipe (4 rounds × 20 Narrow `real` episodes, 1,000-step dynamics finetunes, the
#   300 held-out episodes of runs/peg_heldout as `sim` replay, planner `manipulation-prior`) from RUN into OUT on one
#   core (resumable; log in OUT.log), then copies its adapt_results.json to RECORD.
peg_alg1_to() {
  local record=$1 run=$2 out=$3 seed=$4
  shift 4
  OMP_NUM_THREADS=1 simdist adapt peg-insertion --checkpoint "$run" --rounds 4 --episodes-per-round 20 --grid narrow \
    --preset cpu --mppi manipulation-prior --finetune-steps 1000 --sim-data runs/peg_heldout --seed "$seed" "$@" \
    --out "$out" --quiet > "$out.log" 2>&1
  cp "$out/adapt_results.json" "$record"
}
