"""Imports every .glb of a folder into Blender and exports it again.

Usage: python roundtrip.py IN_DIR OUT_DIR PROFILE
PROFILE: "default" (Blender's default export: no custom properties, animation
always sampled), "custom" ("Custom Properties" on, "Always Sample Animations"
off) or "custom-sampled" ("Custom Properties" on, the rest Blender's defaults).
One Blender process for all files (starting bpy takes about half a second).
"""
import glob
import os
import sys

import bpy_main
import bpy


def main():
    in_dir, out_dir, profile = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    files = sorted(glob.glob(os.path.join(in_dir, "*.glb")))
    for path in files:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=path)
        options = dict(filepath=os.path.join(out_dir, os.path.basename(path)), export_format="GLB")
        if profile == "custom":
            options.update(export_extras=True, export_force_sampling=False)
        elif profile == "custom-sampled":
            options.update(export_extras=True)
        elif profile != "default":
            raise SystemExit(f"unknown profile {profile!r}")
        bpy.ops.export_scene.gltf(**options)
    print(f"blender round trip ({profile}): {len(files)} files")


bpy_main.run(main)
