#!/usr/bin/env bash
# Makes fixtures/foreign/obj/assimp_scene.obj (+ .mtl): the Blender-written
# blender_scene.obj (tools/blender/obj_fixtures.py) re-exported by assimp's
# command-line tool (Debian: apt-get install assimp-utils).
set -euo pipefail
cd "$(dirname "$0")/../../fixtures/foreign/obj"
assimp export blender_scene.obj assimp_scene.obj
