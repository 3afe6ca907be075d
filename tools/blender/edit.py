"""The edit scenario of the Blender round trip: a modder's typical changes.

Usage: python edit.py IN.glb OUT.glb EDITS.json
- moves every vertex of the object "cockpit|L0G0" by +0.25 along X (local);
- deletes the first two faces of "gun|L0G0";
- adds a cube "antenna" (material "mat9") under the node "base";
- re-keys the location of "base" with Bezier keys at frames 0, 10 and 28;
then exports with Blender's default settings and writes what was done to EDITS.json.
"""
import json
import os
import sys

import bpy_main
import bpy  # noqa: I001 - bpy must come first: it makes bmesh importable
import bmesh


def main():
    src, out, edits_path = sys.argv[1:4]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    objects = bpy.data.objects

    cockpit = objects["cockpit|L0G0"]
    cockpit.data = cockpit.data.copy()  # its own mesh: the edit must not reach other users
    for v in cockpit.data.vertices:
        v.co.x += 0.25

    gun = objects["gun|L0G0"]
    gun.data = gun.data.copy()
    bm = bmesh.new()
    bm.from_mesh(gun.data)
    bm.faces.ensure_lookup_table()
    faces_before = len(bm.faces)
    bmesh.ops.delete(bm, geom=[bm.faces[0], bm.faces[1]], context="FACES_ONLY")
    bm.to_mesh(gun.data)
    bm.free()

    base = objects["base"]
    mesh = bpy.data.meshes.new("antenna")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=0.5)
    bm.to_mesh(mesh)
    bm.free()
    material = bpy.data.materials.new("mat9")
    mesh.materials.append(material)
    antenna = bpy.data.objects.new("antenna", mesh)
    bpy.context.scene.collection.objects.link(antenna)
    antenna.parent = base
    antenna.location = (0.0, 0.0, 1.5)

    action = base.animation_data.action
    for fc in [fc for fc in action.fcurves if fc.data_path == "location"]:
        action.fcurves.remove(fc)
    keys = [(0, (0.0, 0.0, 0.0)), (10, (1.0, 0.5, 0.0)), (28, (2.0, -1.0, 0.75))]
    for frame, loc in keys:
        base.location = loc
        base.keyframe_insert("location", frame=frame)
    for fc in action.fcurves:
        if fc.data_path == "location":
            assert all(k.interpolation == "BEZIER" for k in fc.keyframe_points)

    bpy.context.scene.frame_set(0)
    bpy.ops.export_scene.gltf(filepath=out, export_format="GLB")
    with open(edits_path, "w") as f:
        json.dump(
            {
                "moved": {"node": "cockpit", "delta": [0.25, 0.0, 0.0]},
                "deleted": {"node": "gun", "faces_before": faces_before, "faces_deleted": 2},
                "added": {"node": "antenna", "parent": "base", "material": 9, "translation": [0.0, 0.0, 1.5]},
                "rekeyed": {"node": "base", "keys": [[f, list(l)] for f, l in keys]},
            },
            f,
        )
    print("blender edit: done")


bpy_main.run(main)
