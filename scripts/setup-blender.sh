#!/usr/bin/env bash
# Installs real Blender as a Python module (bpy, pinned) into .venv-blender for
# the Blender round-trip tests. Idempotent: an existing venv with bpy is reused,
# and pip's cache keeps the large wheel between runs on one machine.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-blender
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import bpy" >/dev/null 2>&1; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet "bpy==4.2.0" "numpy<2" "zstandard"
"$venv/bin/python" -c "import bpy, os; print('bpy', bpy.app.version_string); os._exit(0)"
