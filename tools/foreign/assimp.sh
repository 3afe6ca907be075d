#!/bin/sh
# Converts the Blender-made OBJ to GLB with assimp (Debian: apt-get install assimp-utils;
# format id from `assimp listexport`: glb2 is glTF 2.0 binary), and writes its reference.
# Run from the repository root after tools/foreign/blender_scene.py:
#   sh tools/foreign/assimp.sh [OUT_DIR]
set -eu
out=${1:-fixtures/foreign/gltf}
here=$(dirname "$0")
assimp export "$out/blender_scene.obj" "$out/assimp_scene.glb" -fglb2
python3 "$here/obj_reference.py" "$out/blender_scene.obj" "$out/assimp_scene.ref.json" assimp_scene.glb
