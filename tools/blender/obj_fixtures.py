"""Make the Blender-written OBJ fixtures under fixtures/foreign/obj/.

Run with the bpy 4.2 module (see shared BLENDER.md for the venv):

    .venv-blender/bin/python (scripts/setup-blender.sh makes it) tools/blender/obj_fixtures.py [ROUND_TRIP_INPUT.obj]

1. `blender_scene.obj` + `.mtl`: a scene authored from scratch (quads, n-gons,
   a concave n-gon, several materials including `mat3` and `Steel`, an object
   without material, a `#<index>` name and Blender's `.001` duplicate name),
   exported with `bpy.ops.wm.obj_export` and its default settings.
2. With an argument (an OBJ written by `mshconv`, e.g. the one
   `cargo run -p mshconv-obj --example obj_export -- fixtures/small/models/m252_wreck.msh /tmp/m252_wreck.obj`
   writes): that file imported with `bpy.ops.wm.obj_import` and exported again,
   both with default settings, as `blender_round_trip.obj` + `.mtl`.

The script ends with os._exit(0): the bpy module can crash at interpreter exit.
"""

import os
import sys

import bpy

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "foreign", "obj")


def material(name, rgb):
    m = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    m.diffuse_color = (*rgb, 1.0)
    return m


def add_object(name, verts, faces, materials=(), face_materials=None, location=(0, 0, 0), rotation=(0, 0, 0)):
    mesh = bpy.data.meshes.new(name + "_mesh")
    mesh.from_pydata(verts, [], faces)
    for m in materials:
        mesh.materials.append(m)
    if face_materials:
        for poly, k in zip(mesh.polygons, face_materials):
            poly.material_index = k
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    obj.rotation_euler = rotation
    bpy.context.scene.collection.objects.link(obj)
    return obj


def authored_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    mat3 = material("mat3", (0.8, 0.2, 0.2))
    steel = material("Steel", (0.6, 0.6, 0.65))
    mat0 = material("mat0", (0.2, 0.8, 0.2))

    # A box of 6 quads: top and bottom Steel, sides mat3; moved and turned.
    box_v = [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]
    box_f = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    add_object("Hull", box_v, box_f, [mat3, steel], [1, 1, 0, 0, 0, 0], location=(0, 0, 1), rotation=(0, 0, 0.5))

    # A hexagonal prism: two 6-gon caps and 6 quad sides, all Steel.
    import math

    ring = [(math.cos(k * math.pi / 3), math.sin(k * math.pi / 3)) for k in range(6)]
    prism_v = [(x * 0.5, y * 0.5, 2.0) for x, y in ring] + [(x * 0.5, y * 0.5, 2.6) for x, y in ring]
    prism_f = [tuple(range(5, -1, -1)), tuple(range(6, 12))] + [(k, (k + 1) % 6, (k + 1) % 6 + 6, k + 6) for k in range(6)]
    add_object("Turret", prism_v, prism_f, [steel])

    # A concave 6-gon (L shape) and a triangle, mat0 and mat3; the name carries an MSH node index.
    l_v = [(0, 0, 3), (2, 0, 3), (2, 0, 4), (1, 0, 4), (1, 0, 5), (0, 0, 5), (3, 0, 3), (4, 0, 3), (3, 0, 4)]
    l_f = [(0, 1, 2, 3, 4, 5), (6, 7, 8)]
    add_object("Antenna#4", l_v, l_f, [mat0, mat3], [0, 1])

    # A second "Hull": Blender names it "Hull.001". One quad, no material at all.
    add_object("Hull", [(3, 3, 0), (4, 3, 0), (4, 4, 0), (3, 4, 0)], [(0, 1, 2, 3)])

    bpy.ops.wm.obj_export(filepath=os.path.join(OUT, "blender_scene.obj"))


def round_trip(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.obj_import(filepath=path)
    bpy.ops.wm.obj_export(filepath=os.path.join(OUT, "blender_round_trip.obj"))


def main():
    os.makedirs(OUT, exist_ok=True)
    authored_scene()
    if len(sys.argv) > 1:
        round_trip(os.path.abspath(sys.argv[1]))
    print("wrote", sorted(os.listdir(OUT)))
    sys.stdout.flush()


main()
os._exit(0)
