#!/usr/bin/env bash
# The test suite: installs what the tests use (the Khronos glTF-Validator from
# npm, pinned by tools/gltf-validator/package-lock.json), then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d tools/gltf-validator/node_modules/gltf-validator ]; then
  npm ci --prefix tools/gltf-validator --no-audit --no-fund
fi
# glTF-Transform's CLI (quantize, meshopt) for crates/formats/gltf/tests/import_compressed.rs.
[ -d tools/gltf-transform/node_modules/@gltf-transform/cli ] || npm ci --prefix tools/gltf-transform --no-audit --no-fund
# Real Blender (bpy) for the Blender round-trip tests.
scripts/setup-blender.sh
# Pixar's USD Python bindings (usd-core) for the USD export test (crates/formats/usd/tests/usd_export.rs).
scripts/setup-usd.sh
# Headless chromium and playwright-core for the web page's browser test (server/tests/web_page.rs).
scripts/setup-browser.sh
command -v curl >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq curl; }  # README curl examples (server/tests/readme.rs)
cargo test --workspace "$@"
# glTF without its compressed-import features (what `--no-default-features`
# front ends build): such files are refused with gltf.extension_required.
cargo test --locked -p mshconv-gltf --no-default-features --lib "$@"
# The Python package (crates/python): its wheel in a fresh venv, tested with pytest.
scripts/test-python.sh
