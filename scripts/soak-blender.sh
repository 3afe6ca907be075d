#!/usr/bin/env bash
# The unedited Blender trip over generated wild game folders (docs/BLENDER.md,
# "Soak"): `gen-fixtures wild --seed SEED --count COUNT` writes the folders,
# then every model goes through real Blender 4.2 (.venv-blender,
# scripts/setup-blender.sh) by the add-on and by glTF with Custom Properties,
# each in a fresh copy of its folder, which must come back byte for byte
# (tools/blender/soak.py). Prints one PASS/FAIL line per model and way (the
# seed, the folder, the first differences, the notes), then the figure.
#   scripts/soak-blender.sh SEED COUNT [OUT]      (OUT: target/soak/SEED)
# SOAK_PROFILE=debug builds debug binaries and wheel (quicker to build).
# Exit status: 0 when every trip is exact, 1 otherwise, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
seed=$1 count=$2 out=${3:-target/soak/$1}
profile=${SOAK_PROFILE:-release}
cargo_profile=(--release) wheel_profile=()
if [ "$profile" = debug ]; then cargo_profile=() wheel_profile=(--debug); fi
cargo build --locked "${cargo_profile[@]}" -p mshconv -p mshconv-fixtures >&2
wheel=$(scripts/python-wheel.sh "${wheel_profile[@]}" | tail -n 1)
scripts/setup-blender.sh
site=target/soak-site
rm -rf "$site"
.venv-blender/bin/python -m pip install --quiet --disable-pip-version-check --target "$site" "$wheel"
rm -rf "$out"
mkdir -p "$out/work"
"target/$profile/gen-fixtures" wild --seed "$seed" --count "$count" --out "$out/pristine"
results="$out/results.txt"
# Blender's own logging goes to soak.log; the result lines to results.txt.
PYTHONPATH="$PWD/$site:$PWD/tools/blender" .venv-blender/bin/python tools/blender/soak.py \
  "$out/pristine" "$out/work" "$PWD/target/$profile/mshconv" >"$out/soak.log" 2>&1 || true
grep -a '^\(PASS\|FAIL\) ' "$out/soak.log" >"$results" || true
cat "$results"
total=$(wc -l <"$results")
passed=$(grep -c '^PASS ' "$results" || true)
models=$(grep -c 'way=addon' "$results" || true)
expected=$(python3 -c "import json,sys; print(2 * sum(len(f['models']) for f in json.load(open(sys.argv[1]))))" "$out/pristine/wild.json")
echo "soak seed $seed: $count game folders, $models models, $passed of $total trips exact (expected $expected trips)"
[ "$total" -eq "$expected" ] && [ "$passed" -eq "$total" ]
