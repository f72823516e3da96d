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
