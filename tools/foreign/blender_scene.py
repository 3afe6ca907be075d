"""Authors a small scene in Blender (bpy 4.2) from scratch and exports it as glTF.

Writes into the output folder (default: fixtures/foreign/gltf beside this
repository's tools/):

- blender_scene.glb          default glTF export settings (GLB, sampled animation)
- blender_scene_extras.glb   export_extras=True, export_force_sampling=False
                             (Bezier keys kept as CUBICSPLINE)
- blender_scene.obj/.mtl     the same scene at frame 0 as OBJ (input of assimp.sh)
- blender_scene.ref.json     what Blender itself computes, in glTF's frame
                             (Y up: Blender (x, y, z) is glTF (x, z, -y)):
                             per mesh object its world-space triangles at frame 0
                             (evaluated mesh, loop triangles, with the material of
                             each), and for the animated objects their world
                             translation and rotation at several frames (24 fps)
                             and their keyframes (where the non-sampled export
                             is exact; between keys Blender's own CUBICSPLINE
                             tangents only approximate its Bezier curves)

The scene: Base (cube, bevel applied, uniformly scaled 1.5, materials Steel and
mat3, animated location + Euler rotation with Bezier keys) -> Mount (empty) ->
Turret (cylinder with ngon caps, animated location + quaternion rotation) ->
{Barrel (non-uniformly scaled box, subdivision applied), Antenna (ngon disc,
mat3)}; Hull (a separate root, quads, rotated and translated, material Paint).

Run: .venv-blender/bin/python tools/foreign/blender_scene.py [OUT_DIR]
"""

import json
import math
import os
import sys

import bpy  # first: it makes bmesh and mathutils importable
import bmesh
from mathutils import Euler, Matrix, Quaternion, Vector

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../fixtures/foreign/gltf"))
FRAMES = [0, 3, 5, 6, 8, 12, 13, 14, 16, 17, 20, 24]


def material(name, rgba):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    m.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = rgba
    m.diffuse_color = rgba
    return m


def mesh_object(name, build, mats, parent=None):
    me = bpy.data.meshes.new(name + "Mesh")
    bm = bmesh.new()
    build(bm)
    bm.to_mesh(me)
    bm.free()
    for m in mats:
        me.materials.append(m)
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.parent = parent
    return ob


def apply_modifiers(ob):
    """Bakes the object's modifiers into its mesh (as 'Apply' does)."""
    dg = bpy.context.evaluated_depsgraph_get()
    me = bpy.data.meshes.new_from_object(ob.evaluated_get(dg))
    ob.modifiers.clear()
    ob.data = me


def key(ob, frame, loc, rot):
    ob.location = loc
    if ob.rotation_mode == "QUATERNION":
        ob.rotation_quaternion = rot
        ob.keyframe_insert("rotation_quaternion", frame=frame)
    else:
        ob.rotation_euler = rot
        ob.keyframe_insert("rotation_euler", frame=frame)
    ob.keyframe_insert("location", frame=frame)


def to_gltf_vec(v):
    return [v[0], v[2], -v[1]]


def to_gltf_quat(q):  # Blender (w, x, y, z) -> glTF [x, y, z, w], with the same change of basis
    return [q.x, q.z, -q.y, q.w]


def r6(values):
    return [round(float(x), 6) for x in values]


def build():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start = 0
    scene.frame_end = 24

    steel = material("Steel", (0.55, 0.56, 0.6, 1.0))
    mat3 = material("mat3", (0.8, 0.2, 0.1, 1.0))
    paint = material("Paint", (0.2, 0.5, 0.2, 1.0))

    def cube(bm):
        bmesh.ops.create_cube(bm, size=1.0)
        for i, f in enumerate(bm.faces):
            f.material_index = i % 2

    base = mesh_object("Base", cube, [steel, mat3])
    bev = base.modifiers.new("Bevel", "BEVEL")
    bev.width = 0.1
    bev.segments = 1
    apply_modifiers(base)
    base.location = (0.5, -1.0, 0.25)
    base.rotation_euler = Euler((math.radians(10), 0.0, math.radians(30)))
    base.scale = (1.5, 1.5, 1.5)

    mount = bpy.data.objects.new("Mount", None)
    scene.collection.objects.link(mount)
    mount.parent = base
    mount.location = (0.0, 0.1, 0.5)
    mount.rotation_euler = Euler((0.0, math.radians(-5), math.radians(15)))

    def cylinder(bm):
        bmesh.ops.create_cone(
            bm, cap_ends=True, cap_tris=False, segments=8, radius1=0.4, radius2=0.4, depth=0.3
        )

    turret = mesh_object("Turret", cylinder, [paint], parent=mount)
    turret.location = (0.0, 0.0, 0.2)
    turret.rotation_mode = "QUATERNION"
    turret.rotation_quaternion = Quaternion((0.0, 0.0, 1.0), math.radians(20))

    def box(bm):
        bmesh.ops.create_cube(bm, size=1.0)

    barrel = mesh_object("Barrel", box, [steel], parent=turret)
    sub = barrel.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = 1
    sub.render_levels = 1
    apply_modifiers(barrel)
    barrel.location = (0.0, 0.6, 0.05)
    barrel.rotation_euler = Euler((math.radians(80), 0.0, 0.0))
    barrel.scale = (0.15, 0.15, 0.8)

    def disc(bm):
        bmesh.ops.create_circle(bm, cap_ends=True, cap_tris=False, segments=7, radius=0.12)

    antenna = mesh_object("Antenna", disc, [mat3], parent=turret)
    antenna.location = (-0.25, -0.2, 0.3)
    antenna.rotation_euler = Euler((math.radians(35), math.radians(10), math.radians(-20)))

    def hull(bm):
        # An L-shaped prism: the caps are concave hexagons (ngons), the sides quads.
        outline = [(0, 0), (1.0, 0), (1.0, 0.4), (0.4, 0.4), (0.4, 1.0), (0, 1.0)]
        bottom = [bm.verts.new((x, y, 0.0)) for x, y in outline]
        top = [bm.verts.new((x, y, 0.3)) for x, y in outline]
        bm.faces.new(list(reversed(bottom)))
        bm.faces.new(top)
        n = len(outline)
        for i in range(n):
            j = (i + 1) % n
            bm.faces.new((bottom[i], bottom[j], top[j], top[i]))

    hull = mesh_object("Hull", hull, [paint])
    hull.location = (-2.0, 1.0, 0.0)
    hull.rotation_euler = Euler((0.0, 0.0, math.radians(-40)))

    # Bezier (the default) keys on two objects: location + rotation.
    for f, loc, rot in [
        (0, (0.5, -1.0, 0.25), (math.radians(10), 0.0, math.radians(30))),
        (8, (0.9, -0.6, 0.4), (math.radians(20), math.radians(5), math.radians(60))),
        (16, (1.2, 0.1, 0.35), (math.radians(5), math.radians(-10), math.radians(120))),
        (24, (0.7, 0.4, 0.25), (0.0, 0.0, math.radians(150))),
    ]:
        key(base, f, loc, rot)
    axis = Vector((0.2, 0.1, 1.0)).normalized()
    for f, loc, angle in [
        (0, (0.0, 0.0, 0.2), 20),
        (6, (0.05, 0.0, 0.25), 70),
        (14, (0.0, 0.1, 0.2), 160),
        (24, (0.0, 0.0, 0.2), 250),
    ]:
        key(turret, f, loc, Quaternion(axis, math.radians(angle)))
    # Custom properties, exported only with export_extras (the importer must ignore them).
    base["game_id"] = 7
    turret["note"] = "rotates"
    scene.frame_set(0)
    return scene


def reference(scene):
    ref = {
        "generator": "tools/foreign/blender_scene.py",
        "tool": "Blender " + bpy.app.version_string,
        "space": "glTF (Y up): Blender (x, y, z) is (x, z, -y)",
        "fps": 24,
        "files": ["blender_scene.glb", "blender_scene_extras.glb"],
        "nodes": {},
        "animated": {},
    }
    scene.frame_set(0)
    dg = bpy.context.evaluated_depsgraph_get()
    for ob in sorted(scene.objects, key=lambda o: o.name):
        node = {"parent": ob.parent.name if ob.parent else None}
        if ob.type == "MESH":
            ev = ob.evaluated_get(dg)
            me = ev.to_mesh()
            me.calc_loop_triangles()
            mw = ob.matrix_world
            tris, mats = [], []
            for lt in me.loop_triangles:
                corners = []
                for vi in lt.vertices:
                    corners += to_gltf_vec(mw @ me.vertices[vi].co)
                tris.append(r6(corners))
                mats.append(me.materials[lt.material_index].name)
            node["triangles"] = tris
            node["materials"] = mats
            node["polygon_count"] = len(me.polygons)
            ev.to_mesh_clear()
        ref["nodes"][ob.name] = node
    for ob in sorted(scene.objects, key=lambda o: o.name):
        if not (ob.animation_data and ob.animation_data.action):
            continue
        keys = sorted({round(p.co[0]) for c in ob.animation_data.action.fcurves for p in c.keyframe_points})
        tr, rot = [], []
        for f in FRAMES:
            scene.frame_set(f)
            loc, q, _ = ob.matrix_world.decompose()
            tr.append(r6(to_gltf_vec(loc)))
            rot.append(r6(to_gltf_quat(q)))
        ref["animated"][ob.name] = {"frames": FRAMES, "keys": keys, "translation": tr, "rotation": rot}
    scene.frame_set(0)
    return ref


def main():
    os.makedirs(OUT, exist_ok=True)
    scene = build()
    ref = reference(scene)
    bpy.ops.export_scene.gltf(filepath=os.path.join(OUT, "blender_scene.glb"))
    bpy.ops.export_scene.gltf(
        filepath=os.path.join(OUT, "blender_scene_extras.glb"),
        export_format="GLB",
        export_extras=True,
        export_force_sampling=False,
    )
    scene.frame_set(0)
    bpy.ops.wm.obj_export(
        filepath=os.path.join(OUT, "blender_scene.obj"),
        export_animation=False,
        export_uv=True,
        export_normals=True,
        export_materials=True,
    )
    with open(os.path.join(OUT, "blender_scene.ref.json"), "w") as f:
        json.dump(ref, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
