#!/usr/bin/env bash
# Builds the Blender 4.2+ extension of the add-on: target/blender/
# mshconv_blender-VERSION.zip with blender_manifest.toml, the add-on package
# (crates/python/python/mshconv_blender) and the mshconv wheel it loads
# (scripts/python-wheel.sh). Install it with Edit > Preferences > Get
# Extensions > Install from Disk.
#   scripts/blender-extension.sh [--debug]   # --debug: a debug build of the wheel
# Prints the zip's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(scripts/python-wheel.sh "$@" | tail -n 1)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
out=target/blender
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/wheels"
cp crates/python/python/mshconv_blender/*.py "$stage/"
cp "$wheel" "$stage/wheels/"
sed -e "s/@VERSION@/$version/" -e "s/@WHEEL@/$(basename "$wheel")/" \
  crates/python/blender_manifest.toml.in >"$stage/blender_manifest.toml"
zip="$(pwd)/$out/mshconv_blender-$version.zip"
rm -f "$zip"
python3 - "$stage" "$zip" <<'PY'
import pathlib, sys, zipfile
stage, target = pathlib.Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for path in sorted(stage.rglob("*")):
        if path.is_file():
            z.write(path, path.relative_to(stage).as_posix())
PY
echo "$out/mshconv_blender-$version.zip"
