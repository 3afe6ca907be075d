"""Authors armature rigs in Blender (bpy 4.2) and exports each as glTF (GLB,
default export settings), with what Blender itself computes for them.
Writes into the output folder (default: fixtures/foreign/gltf/skins):
- rigid.glb          one mesh under an Armature modifier, every vertex weighted
                     100% to one of four bones (Hull, Turret, Gun, Leg), the
                     armature object moved and turned, the bones animated
- bone_parented.glb  the same bones, each part its own mesh object parented to
                     its bone (parent type BONE, no Armature modifier): Blender
                     still writes the armature's skin, used by no mesh
- blended.glb        a segmented bar over two bones, the middle rings weighted
                     between them (smooth ramp), the upper bone bending
- morph.glb          a mesh with two shape keys, one of them animated
- skins.ref.json     per file, the frames sampled (24 fps; every frame for
                     the blended rig) and per mesh object
                     its world-space triangles at each frame (evaluated mesh,
                     loop triangles, glTF frame: Blender (x, y, z) is glTF
                     (x, z, -y)), rounded to 6 decimals
Frame 0 of every animation is the rest pose.
Run: .venv-blender/bin/python tools/foreign/blender_skins.py [OUT_DIR]
"""

import json
import math
import os
import sys

import bpy  # first: it makes bmesh and mathutils importable
import bmesh
from mathutils import Euler, Matrix, Quaternion, Vector

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(
    sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../fixtures/foreign/gltf/skins")
)
FRAMES = [0, 4, 7, 12, 17, 20, 24]
# The blended rig at every frame: its test compares the largest error over the
# animation with the one the importer reports (measured at every frame).
EVERY_FRAME = list(range(25))


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start = 0
    scene.frame_end = 24
    return scene


def armature(scene, bones):
    """An armature object with `bones` [(name, parent, head, tail)], moved and turned."""
    arm = bpy.data.armatures.new("Rig")
    ob = bpy.data.objects.new("Armature", arm)
    scene.collection.objects.link(ob)
    ob.location = (0.3, -0.2, 0.1)
    ob.rotation_euler = Euler((0.0, 0.0, math.radians(25)))
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    made = {}
    for name, parent, head, tail in bones:
        b = arm.edit_bones.new(name)
        b.head = head
        b.tail = tail
        if parent:
            b.parent = made[parent]
        made[name] = b
    bpy.ops.object.mode_set(mode="OBJECT")
    return ob


MECH_BONES = [
    ("Hull", None, (0, 0, 0), (0, 0, 0.5)),
    ("Turret", "Hull", (0, 0, 0.5), (0, 0, 0.9)),
    ("Gun", "Turret", (0, 0.3, 0.7), (0, 1.2, 0.7)),
    ("Leg", "Hull", (0.6, 0, 0), (0.6, 0, -0.6)),
]


def box(bm, center, size):
    ret = bmesh.ops.create_cube(bm, size=1.0)
    for v in ret["verts"]:
        v.co = Vector((center[0] + v.co.x * size[0], center[1] + v.co.y * size[1], center[2] + v.co.z * size[2]))
    return ret["verts"]


MECH_PARTS = {
    "Hull": ((0, 0, 0.25), (1.0, 0.8, 0.5)),
    "Turret": ((0, 0, 0.65), (0.5, 0.5, 0.3)),
    "Gun": ((0, 0.75, 0.7), (0.1, 0.9, 0.1)),
    "Leg": ((0.6, 0, -0.3), (0.15, 0.15, 0.6)),
}


def pose_keys(arm, keys):
    """keys: {bone: [(frame, (x, y, z) location, (axis, degrees))]}"""
    for bone, ks in keys.items():
        pb = arm.pose.bones[bone]
        pb.rotation_mode = "QUATERNION"
        for f, loc, (axis, deg) in ks:
            pb.location = loc
            pb.rotation_quaternion = Quaternion(Vector(axis).normalized(), math.radians(deg))
            pb.keyframe_insert("location", frame=f)
            pb.keyframe_insert("rotation_quaternion", frame=f)


MECH_KEYS = {
    "Hull": [(0, (0, 0, 0), ((0, 0, 1), 0)), (12, (0.2, 0.1, 0.0), ((0, 1, 0), 15)), (24, (0.4, -0.1, 0.0), ((0, 0, 1), 30))],
    "Turret": [(0, (0, 0, 0), ((0, 1, 0), 0)), (10, (0, 0, 0), ((0, 1, 0), 70)), (24, (0, 0, 0), ((0, 1, 0), 160))],
    "Gun": [(0, (0, 0, 0), ((1, 0, 0), 0)), (8, (0, 0.1, 0), ((1, 0, 0), 20)), (24, (0, -0.05, 0), ((1, 0, 0), -10))],
    "Leg": [(0, (0, 0, 0), ((1, 0, 0), 0)), (12, (0, 0, 0), ((1, 0.2, 0), 40)), (24, (0, 0, 0), ((1, 0, 0), -25))],
}


def rigid(scene):
    arm = armature(scene, MECH_BONES)
    me = bpy.data.meshes.new("MechMesh")
    bm = bmesh.new()
    groups = {}
    for name, (c, s) in MECH_PARTS.items():
        groups[name] = [v for v in box(bm, c, s)]
    bm.verts.index_update()
    index_of = {name: [v.index for v in vs] for name, vs in groups.items()}
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new("Mech", me)
    scene.collection.objects.link(ob)
    for name, idx in index_of.items():
        vg = ob.vertex_groups.new(name=name)
        vg.add(idx, 1.0, "REPLACE")
    ob.parent = arm
    mod = ob.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    pose_keys(arm, MECH_KEYS)
    return [ob]


def bone_parented(scene):
    arm = armature(scene, MECH_BONES)
    obs = []
    for name, (c, s) in MECH_PARTS.items():
        me = bpy.data.meshes.new(name + "Mesh")
        bm = bmesh.new()
        box(bm, c, s)
        bm.to_mesh(me)
        bm.free()
        ob = bpy.data.objects.new(name + "Part", me)
        scene.collection.objects.link(ob)
        # Parent to the bone keeping the world placement (as Ctrl+P > Bone does):
        # a bone parent's frame is the bone's, moved to its tail.
        bone = arm.data.bones[name]
        ob.parent = arm
        ob.parent_type = "BONE"
        ob.parent_bone = name
        parent_world = arm.matrix_world @ bone.matrix_local @ Matrix.Translation((0.0, bone.length, 0.0))
        ob.matrix_parent_inverse = parent_world.inverted()
        obs.append(ob)
    pose_keys(arm, MECH_KEYS)
    return obs


def blended(scene):
    arm = armature(scene, [("Lower", None, (0, 0, 0), (0, 0, 1.0)), ("Upper", "Lower", (0, 0, 1.0), (0, 0, 2.0))])
    me = bpy.data.meshes.new("BarMesh")
    bm = bmesh.new()
    rings = 9
    ring = []
    for r in range(rings):
        z = 2.0 * r / (rings - 1)
        ring.append([bm.verts.new((0.2 * math.cos(a * math.pi / 2), 0.2 * math.sin(a * math.pi / 2), z)) for a in range(4)])
    for r in range(rings - 1):
        for a in range(4):
            b = (a + 1) % 4
            bm.faces.new((ring[r][a], ring[r][b], ring[r + 1][b], ring[r + 1][a]))
    bm.faces.new(list(reversed(ring[0])))
    bm.faces.new(ring[-1])
    bm.verts.index_update()
    weights = []
    for r in range(rings):
        z = 2.0 * r / (rings - 1)
        upper = min(1.0, max(0.0, (z - 0.5) / 1.0))  # ramp from z 0.5 to 1.5
        weights.append(([v.index for v in ring[r]], upper))
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new("Bar", me)
    scene.collection.objects.link(ob)
    lower = ob.vertex_groups.new(name="Lower")
    upper = ob.vertex_groups.new(name="Upper")
    for idx, w in weights:
        if w < 1.0:
            lower.add(idx, 1.0 - w, "REPLACE")
        if w > 0.0:
            upper.add(idx, w, "REPLACE")
    ob.parent = arm
    mod = ob.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    pose_keys(
        arm,
        {
            "Lower": [(0, (0, 0, 0), ((0, 0, 1), 0)), (24, (0, 0, 0), ((0, 0, 1), 20))],
            "Upper": [(0, (0, 0, 0), ((1, 0, 0), 0)), (12, (0, 0, 0), ((1, 0, 0), 45)), (24, (0, 0, 0), ((1, 0.3, 0), -30))],
        },
    )
    return [ob]


def morph(scene):
    me = bpy.data.meshes.new("BlobMesh")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new("Blob", me)
    scene.collection.objects.link(ob)
    ob.location = (0.5, 0.0, 0.2)
    ob.shape_key_add(name="Basis")
    tall = ob.shape_key_add(name="Tall")
    for v in tall.data:
        v.co.z *= 2.0
    wide = ob.shape_key_add(name="Wide")
    for v in wide.data:
        v.co.x *= 1.5
    tall.value = 0.0
    tall.keyframe_insert("value", frame=0)
    tall.value = 1.0
    tall.keyframe_insert("value", frame=24)
    return [ob]


def to_gltf_vec(v):
    return [v[0], v[2], -v[1]]


def r6(values):
    return [round(float(x), 6) for x in values]


def triangles(scene, ob):
    dg = bpy.context.evaluated_depsgraph_get()
    ev = ob.evaluated_get(dg)
    me = ev.to_mesh()
    me.calc_loop_triangles()
    mw = ev.matrix_world
    out = []
    for t in me.loop_triangles:
        corners = []
        for vi in t.vertices:
            corners += to_gltf_vec(mw @ me.vertices[vi].co)
        out.append(r6(corners))
    ev.to_mesh_clear()
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    ref = {"tool": "blender " + bpy.app.version_string, "fps": 24, "files": {}}
    for name, build in [("rigid", rigid), ("bone_parented", bone_parented), ("blended", blended), ("morph", morph)]:
        scene = reset()
        objects = build(scene)
        entry = {}
        frames = EVERY_FRAME if name == "blended" else FRAMES
        entry = {"frames": frames, "objects": {}}
        for ob in objects:
            per_frame = []
            for f in frames:
                scene.frame_set(f)
                per_frame.append(triangles(scene, ob))
            entry["objects"][ob.name] = per_frame
        scene.frame_set(0)
        ref["files"][name + ".glb"] = entry
        bpy.ops.export_scene.gltf(filepath=os.path.join(OUT, name + ".glb"), export_format="GLB")
    with open(os.path.join(OUT, "skins.ref.json"), "w") as f:
        json.dump(ref, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


main()
os._exit(0)
