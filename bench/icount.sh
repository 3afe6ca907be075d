#!/usr/bin/env bash
# The guard of issue 41: the instructions of one pass of the main conversions
# over a fixed corpus, counted by valgrind (cachegrind's "I refs", exact and
# the same on a busy machine as on an idle one), against the figures recorded
# in bench/icount.txt. It fails (exit 1) when a count grows more than 10% over
# its recorded figure, and says so when one shrinks more than 10% (record the
# gain). bench/RESULTS.md ("The instruction-count guard") explains it.
#
#   bench/icount.sh              # measure and compare (about a minute after the build)
#   bench/icount.sh --record     # measure and rewrite bench/icount.txt
#   bench/icount.sh --self-test  # the comparison on made-up figures (no build, no valgrind)
#   bench/icount.sh --compare RECORDED MEASURED   # compare two figure files
#   ICOUNT_FILE=FILE bench/icount.sh   # compare against (or --record into) FILE instead
#
# bench/icount.txt changes only in a commit that says why its figures moved.
#
# The corpus: from `gen-fixtures full` (seed fixed), every fifth model
# (m000, m005, ... m430), the deepest (m037), the one using all 15 slots
# (m012), the legacy one (m211), the two near 1 MB (m101, m389), and the
# archive system.rlb (the legacy model, five small ones, a text entry).
# Every measurement runs on one thread (`--jobs 1`), so the counts repeat.
set -euo pipefail
cd "$(dirname "$0")/.."
figures="${ICOUNT_FILE:-bench/icount.txt}"
# A count may grow up to this many percent over its recorded figure.
limit=10

# compare RECORDED MEASURED: each file has one measurement a line, "NAME
# INSTRUCTIONS COMMENT..." ('#' lines and blank lines skipped). Prints one
# line per measurement; returns 1 when a count grew more than $limit% or a
# measurement is in one file only, else 0.
compare() {
  awk -v limit="$limit" '
    /^[[:space:]]*(#|$)/ { next }
    NR == FNR { rec[$1] = $2; order[++n] = $1; next }
    {
      name = $1; now = $2; seen[name] = 1
      if (!(name in rec)) {
        printf "icount: FAIL %s is not recorded (now %.0f): run bench/icount.sh --record and commit why\n", name, now
        bad = 1; next
      }
      if (rec[name] !~ /^[0-9]+$/ || rec[name] == 0 || now !~ /^[0-9]+$/) {
        printf "icount: FAIL %s: the figures are not both positive whole numbers (recorded \"%s\", now \"%s\")\n", name, rec[name], now
        bad = 1; next
      }
      ratio = now / rec[name]
      if (ratio > 1 + limit / 100) {
        printf "icount: FAIL %s grew %.1f%% (recorded %.0f, now %.0f, ratio %.3f; limit %.2f)\n", name, (ratio - 1) * 100, rec[name], now, ratio, 1 + limit / 100
        bad = 1
      } else if (ratio < 1 - limit / 100) {
        printf "icount: %s shrank %.1f%% (recorded %.0f, now %.0f, ratio %.3f): record the gain (bench/icount.sh --record) in a commit that says why\n", name, (1 - ratio) * 100, rec[name], now, ratio
      } else {
        printf "icount: ok %s (recorded %.0f, now %.0f, ratio %.3f)\n", name, rec[name], now, ratio
      }
    }
    END {
      for (i = 1; i <= n; i++) if (!(order[i] in seen)) {
        printf "icount: FAIL %s is recorded but was not measured: run bench/icount.sh --record and commit why\n", order[i]
        bad = 1
      }
      exit bad
    }' "$1" "$2"
}

# The comparison on made-up figures: each case's exit status and the line
# that names the measurement.
self_test() {
  local dir status out failed=0
  dir=$(mktemp -d)
  printf '# a comment\n\nglb 1000000 the GLB batch\nobj 2000000 the OBJ batch\n' >"$dir/rec"
  # case NAME WANT_STATUS WANT_LINE MEASURED_LINES...
  case_() {
    local name=$1 want=$2 line=$3
    shift 3
    printf '%s\n' "$@" >"$dir/now"
    status=0
    out=$(compare "$dir/rec" "$dir/now") || status=$?
    if [ "$status" != "$want" ] || ! grep -qF -- "$line" <<<"$out"; then
      echo "icount self-test: $name: exit $status (want $want), output:" >&2
      echo "$out" >&2
      failed=1
    fi
  }
  case_ "the same figures pass" 0 "icount: ok glb (recorded 1000000, now 1000000, ratio 1.000)" \
    "glb 1000000 x" "obj 2000000 x"
  case_ "exactly 10% more passes" 0 "icount: ok obj (recorded 2000000, now 2200000, ratio 1.100)" \
    "glb 1000000 x" "obj 2200000 x"
  case_ "more than 10% fails, naming it" 1 \
    "icount: FAIL glb grew 10.1% (recorded 1000000, now 1101000, ratio 1.101; limit 1.10)" \
    "glb 1101000 x" "obj 2000000 x"
  case_ "every figure halved in the record fails" 1 "icount: FAIL obj grew 100.0%" \
    "glb 2000000 x" "obj 4000000 x"
  case_ "more than 10% less passes, saying so" 0 "icount: obj shrank 25.0% (recorded 2000000, now 1500000" \
    "glb 1000000 x" "obj 1500000 x"
  case_ "a new measurement fails" 1 "icount: FAIL usd is not recorded (now 5)" \
    "glb 1000000 x" "obj 2000000 x" "usd 5 x"
  case_ "a measurement gone fails" 1 "icount: FAIL obj is recorded but was not measured" \
    "glb 1000000 x"
  echo "big 5000000000 x" >"$dir/rec"
  case_ "counts past 2^32 print whole" 0 "icount: ok big (recorded 5000000000, now 5000000001, ratio 1.000)" \
    "big 5000000001 x"
  echo "bad 1e6 x" >"$dir/rec"
  case_ "a figure that is no number fails" 1 'icount: FAIL bad: the figures are not both positive whole numbers (recorded "1e6", now "1000000")' \
    "bad 1000000 x"
  rm -rf "$dir"
  [ "$failed" = 0 ] || exit 1
  echo "icount self-test: the comparison passes, fails and reports as it should (9 cases)"
}

record=""
case "${1:-}" in
  --self-test) self_test; exit 0 ;;
  --compare) [ $# = 3 ] || { echo "usage: bench/icount.sh --compare RECORDED MEASURED" >&2; exit 2; }
    compare "$2" "$3"; exit $? ;;
  --record) record=1 ;;
  "") ;;
  *) echo "usage: bench/icount.sh [--record | --self-test | --compare RECORDED MEASURED]" >&2; exit 2 ;;
esac
[ -n "$record" ] || [ -f "$figures" ] || { echo "icount: no $figures: run bench/icount.sh --record" >&2; exit 2; }

command -v valgrind >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
cargo build --release --locked -q -p mshconv -p mshconv-fixtures -p mshconv-app --bins --example service_pass
bin="$(pwd)/target/release"

if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=$(mktemp -d /dev/shm/mshconv-icount.XXXXXX); else base=$(mktemp -d); fi
trap 'rm -rf "$base"' EXIT
"$bin/gen-fixtures" full --out "$base/full" >/dev/null
corpus="$base/corpus"
mkdir -p "$corpus/models" "$corpus/archives"
cp "$base/full/models"/m??[05]_*.msh "$base/full/models"/m0{12,37}_*.msh \
  "$base/full/models"/m{101,211,389}_*.msh "$corpus/models/"
cp "$base/full/archives/system.rlb" "$corpus/archives/"
rm -rf "$base/full"

# measure NAME COMMENT COMMAND...: COMMAND under cachegrind (no cache
# simulation: only the instruction count), its count appended to measured.txt.
measure() {
  local name=$1 comment=$2 n
  shift 2
  if ! valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    --log-file="$base/$name.vg" "$@" >"$base/$name.out" 2>&1; then
    echo "icount: $name failed: $*" >&2
    cat "$base/$name.out" "$base/$name.vg" >&2
    exit 2
  fi
  n=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$base/$name.vg" | tr -d ,)
  [ -n "$n" ] || { echo "icount: no instruction count in valgrind's log of $name" >&2; cat "$base/$name.vg" >&2; exit 2; }
  printf '%s %s %s\n' "$name" "$n" "$comment" >>"$base/measured.txt"
}

start=$(date +%s)
measure batch-glb "mshconv batch --to glb --jobs 1" \
  "$bin/mshconv" batch "$corpus/models" "$corpus/archives" --to glb --out "$base/glb" --jobs 1 --quiet
# (OBJ refuses the legacy model: obj.legacy_nodes.)
measure batch-obj "mshconv batch --to obj --jobs 1, the legacy model left out" \
  "$bin/mshconv" batch "$corpus/models" "$corpus/archives" --to obj --out "$base/obj" --jobs 1 --quiet \
  --exclude '*mtcheck.msh'
measure batch-msh "mshconv batch --to msh --jobs 1 of the GLB batch's output" \
  "$bin/mshconv" batch "$base/glb" --to msh --out "$base/back" --jobs 1 --quiet
measure service-glb-msh "mshconv_app::convert MSH to GLB and back in process (crates/app/examples/service_pass.rs), models/ only" \
  "$bin/examples/service_pass" "$corpus/models"
echo "icount: 4 measurements in $(($(date +%s) - start)) s under valgrind ($(ls "$corpus/models" | wc -l) models and system.rlb)"

if [ -n "$record" ]; then
  {
    echo "# bench/icount.sh's recorded instruction counts (valgrind cachegrind, I refs),"
    echo "# one line each: NAME INSTRUCTIONS WHAT. Measured $(date -u +%Y-%m-%d) on $(git describe --always --dirty 2>/dev/null || echo 'a tree outside git')."
    echo "# Change these figures only in a commit that says why (bench/RESULTS.md)."
    cat "$base/measured.txt"
  } >"$figures"
  echo "icount: recorded into $figures:"
  grep -v '^#' "$figures"
  exit 0
fi
compare "$figures" "$base/measured.txt" || {
  echo "icount: a count grew more than $limit% over $figures (or a measurement is new or gone)." >&2
  echo "icount: find what costs more (valgrind --tool=callgrind, bench/RESULTS.md); if the cost is wanted, run bench/icount.sh --record and commit the file with why." >&2
  exit 1
}
