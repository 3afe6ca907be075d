#!/usr/bin/env bash
# The Python package's tests: builds the wheel (scripts/python-wheel.sh, a
# debug build unless MSHCONV_WHEEL=release) and the Blender extension, installs it into a fresh venv
# with pytest and mypy from PyPI, type-checks the typed tests against the
# package's stubs (mypy --strict), and runs crates/python/tests (the CLI
# binary, built here, is their oracle for ARCHIVE:ENTRY); then the Blender
# add-on's tests (crates/python/tests_blender) in real Blender. scripts/test.sh runs it.
#   scripts/test-python.sh [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=(--debug)
[ "${MSHCONV_WHEEL:-debug}" = release ] && build=()
# The extension zip (scripts/blender-extension.sh builds the wheel into it).
zip=$(scripts/blender-extension.sh "${build[@]}" | tail -n 1)
wheel=$(ls target/wheels/mshconv-*.whl)
venv=target/python-test-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "pytest>=8,<9" "mypy>=2.4,<3" "$wheel"
cargo build --quiet --locked -p mshconv
export MSHCONV_CLI="$PWD/target/debug/mshconv"
# From another folder: the tests import the installed package, not the source tree.
# The stubs as a user's checker reads them: the typed tests under --strict.
(cd crates/python/tests && "../../../$venv/bin/python" -m mypy --strict --cache-dir ../../../target/mypy-cache \
  test_pythonic.py conftest.py)
(cd crates/python/tests && "../../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@")

# The Blender add-on in real Blender: the wheel and pytest installed beside
# .venv-blender's bpy 4.2 (scripts/setup-blender.sh), as a script would
# `pip install` the wheel into Blender's Python.
scripts/setup-blender.sh
site=target/blender-site
rm -rf "$site"
.venv-blender/bin/python -m pip install --quiet --disable-pip-version-check --target "$site" "pytest>=8,<9" "$wheel"
# test_wild.py generates its sample of wild game folders with gen-fixtures;
# test_conformance.py runs the CLI and the server binary beside the wheel and the add-on.
cargo build --locked -p mshconv-fixtures --bin gen-fixtures >&2
cargo build --quiet --locked -p mshconv-server
export MSHCONV_SERVER="$PWD/target/debug/mshconv-server"
(cd crates/python/tests_blender && MSHCONV_GEN_FIXTURES="$(cd ../../.. && pwd)/target/debug/gen-fixtures" MSHCONV_EXTENSION_ZIP="$(cd ../../.. && pwd)/$zip" PYTHONPATH="$(cd ../../.. && pwd)/$site" ../../../.venv-blender/bin/python -m pytest -q -p no:cacheprovider "$@")
