#!/usr/bin/env bash
# The edit soak over generated wild game folders (docs/BLENDER.md, "Edit
# soak"): `gen-fixtures wild --seed SEED --count COUNT` writes the folders,
# then every model goes through real Blender 4.2 (.venv-blender,
# scripts/setup-blender.sh) by glTF with Custom Properties (the CLI) three
# times, each in a fresh copy of its folder with ONE edit made in Blender
# (move one slot's vertices, turn one vertex's normal, rename one material),
# and what comes back must change only what the edit touches
# (tools/blender/edit_soak.py). Prints one PASS/FAIL/SKIP line per model and
# edit (the seed, the folder, what was edited; a failure's class and the
# differences beyond the rule), then the figure.
#   scripts/soak-blender-edits.sh SEED COUNT [OUT]   (OUT: target/edit-soak/SEED)
# SOAK_PROFILE=debug builds debug binaries (quicker to build).
# Exit status: 0 when every edited trip keeps to its rule, 1 otherwise, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
seed=$1 count=$2 out=${3:-target/edit-soak/$1}
profile=${SOAK_PROFILE:-release}
cargo_profile=(--release)
if [ "$profile" = debug ]; then cargo_profile=(); fi
cargo build --locked "${cargo_profile[@]}" -p mshconv -p mshconv-fixtures >&2
scripts/setup-blender.sh
rm -rf "$out"
mkdir -p "$out/work"
"target/$profile/gen-fixtures" wild --seed "$seed" --count "$count" --out "$out/pristine"
results="$out/results.txt"
# Blender's own logging goes to soak.log; the result lines to results.txt.
PYTHONPATH="$PWD/tools/blender" .venv-blender/bin/python tools/blender/edit_soak.py \
  "$out/pristine" "$out/work" "$PWD/target/$profile/mshconv" >"$out/soak.log" 2>&1 || true
grep -a '^\(PASS\|FAIL\|SKIP\) ' "$out/soak.log" >"$results" || true
cat "$results"
total=$(grep -c '^\(PASS\|FAIL\) ' "$results" || true)
passed=$(grep -c '^PASS ' "$results" || true)
skipped=$(grep -c '^SKIP ' "$results" || true)
expected=$(python3 -c "import json,sys; print(3 * sum(len(f['models']) for f in json.load(open(sys.argv[1]))))" "$out/pristine/wild.json")
echo "edit soak seed $seed: $count game folders, $passed of $total edited trips keep to the rule, $skipped skipped (expected $expected lines)"
for edit in move normal rename; do
  p=$(grep -c "^PASS .* edit=$edit " "$results" || true)
  t=$(grep -c "^\(PASS\|FAIL\) .* edit=$edit " "$results" || true)
  echo "  $edit: $p of $t"
done
grep -a '^FAIL ' "$results" | sed -n 's/.* edit=\([a-z]*\) .* class=\([^ ]*\) .*/  \1 \2/p' | sort | uniq -c | sort -rn
[ $((total + skipped)) -eq "$expected" ] && [ "$passed" -eq "$total" ]
