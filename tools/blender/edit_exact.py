"""The small edits of the exact Blender round trip (issue: an edit changes only
what it touches), each on a fresh import of IN.glb, each exported twice: with
"Custom Properties" on (OUT_DIR/custom-EDIT.glb) and with Blender's defaults
(OUT_DIR/default-EDIT.glb).

Usage: python edit_exact.py IN.glb OUT_DIR MOVE_OBJECT KEY_OBJECT RENAME_FROM RENAME_TO
- move:   every vertex of the mesh object MOVE_OBJECT (a slot, "<node>|L0G0")
          +0.25 along its local X (its own copy of the mesh);
- key:    the X location of the animated object KEY_OBJECT +0.5 at its second key;
- rename: the object RENAME_FROM becomes RENAME_TO;
- none:   nothing (the unedited trip, for comparison).
"""
import os
import sys

import bpy_main
import bpy


def fresh(src):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    return bpy.data.objects


def export(out_dir, edit):
    for profile, extras in (("custom", True), ("default", False)):
        path = os.path.join(out_dir, f"{profile}-{edit}.glb")
        bpy.ops.export_scene.gltf(filepath=path, export_format="GLB", export_extras=extras)


def main():
    src, out_dir, move, key, rename_from, rename_to = sys.argv[1:7]
    os.makedirs(out_dir, exist_ok=True)

    fresh(src)
    export(out_dir, "none")

    objects = fresh(src)
    part = objects[move]
    part.data = part.data.copy()
    for v in part.data.vertices:
        v.co.x += 0.25
    export(out_dir, "move")

    objects = fresh(src)
    action = objects[key].animation_data.action
    curve = next(fc for fc in action.fcurves if fc.data_path == "location" and fc.array_index == 0)
    point = curve.keyframe_points[1]
    point.co[1] += 0.5
    point.handle_left[1] += 0.5
    point.handle_right[1] += 0.5
    curve.update()
    export(out_dir, "key")

    objects = fresh(src)
    objects[rename_from].name = rename_to
    export(out_dir, "rename")
    print("edit_exact: 4 edits")


bpy_main.run(main)
