#!/bin/sh
# Regenerates every foreign glTF fixture in fixtures/foreign/gltf (see its README.md).
# Needs: bpy 4.2 in a Python 3.11 venv (BPY_PYTHON; default .venv-blender/bin/python as
# scripts/setup-blender.sh makes it, else .venv-blender/bin/python),
# node + npm (three.js, pinned in tools/foreign/threejs), assimp-utils.
set -eu
cd "$(dirname "$0")/../.."
out=fixtures/foreign/gltf
if [ -z "${BPY_PYTHON:-}" ]; then
  if [ -x .venv-blender/bin/python ]; then BPY_PYTHON=.venv-blender/bin/python; else BPY_PYTHON=.venv-blender/bin/python; fi
fi
"$BPY_PYTHON" tools/foreign/blender_scene.py "$out" >/dev/null
"$BPY_PYTHON" tools/foreign/blender_skins.py "$out/skins" >/dev/null
(cd tools/foreign/threejs && npm ci --silent && node make.mjs "../../../$out")
sh tools/foreign/assimp.sh "$out" >/dev/null
node tools/gltf-validator/validate.mjs "$out"
node tools/gltf-validator/validate.mjs "$out/skins"
