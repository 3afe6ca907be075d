#!/usr/bin/env bash
# Installs Pixar's USD Python bindings (PyPI usd-core, pinned) into .venv-usd
# for the USD export tests (crates/formats/usd/tests/usd_export.rs). Idempotent: an
# existing venv with a working pxr is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-usd
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "from pxr import Usd, UsdUtils" >/dev/null 2>&1; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet "usd-core==26.11"
"$venv/bin/python" -c "from pxr import Usd; print('usd-core', Usd.GetVersion())"
