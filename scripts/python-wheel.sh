#!/usr/bin/env bash
# Builds the Python package `mshconv` (crates/python: the PyO3 module, the
# add-on `mshconv_blender`, stubs) into one abi3 wheel for CPython >= 3.10 in
# target/wheels/, with maturin from PyPI installed into target/maturin-venv.
#   scripts/python-wheel.sh             # release build
#   scripts/python-wheel.sh --debug     # a debug build (quicker, for tests while developing)
# Other arguments go to `maturin build`. Prints the wheel's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
MATURIN_VERSION=1.16.0
venv=target/maturin-venv
if [ ! -x "$venv/bin/maturin" ] || ! "$venv/bin/maturin" --version | grep -q "$MATURIN_VERSION"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi
profile=(--release)
args=()
for a in "$@"; do
  if [ "$a" = --debug ]; then profile=(); else args+=("$a"); fi
done
rm -f target/wheels/mshconv-*.whl
"$venv/bin/maturin" build --locked --manifest-path crates/python/Cargo.toml \
  --out target/wheels "${profile[@]}" ${args[@]+"${args[@]}"} >&2
ls target/wheels/mshconv-*.whl
