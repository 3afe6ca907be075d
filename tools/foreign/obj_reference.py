"""Writes the reference JSON of an OBJ file: per object (`o`) its polygons as
written (world space; Blender's OBJ export is Y up, which is glTF's frame), each
with its `usemtl` material. Triangulation-independent: the test checks that the
imported triangles tile each polygon exactly.

Run: python3 tools/foreign/obj_reference.py IN.obj OUT.ref.json GLB_NAME
Plain Python 3, no packages.
"""

import json
import sys


def main(src, dst, glb):
    positions = []
    nodes = {}
    current = None
    material = None
    with open(src) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "o":
                current = nodes.setdefault(" ".join(parts[1:]), {"polygons": [], "materials": []})
            elif parts[0] == "v":
                positions.append([float(x) for x in parts[1:4]])
            elif parts[0] == "usemtl":
                material = " ".join(parts[1:])
            elif parts[0] == "f":
                corners = []
                for c in parts[1:]:
                    i = int(c.split("/")[0])
                    corners += positions[i - 1 if i > 0 else len(positions) + i]
                current["polygons"].append(corners)
                current["materials"].append(material)
    ref = {
        "generator": "tools/foreign/obj_reference.py (input of tools/foreign/assimp.sh)",
        "tool": "OBJ written by Blender 4.2 (tools/foreign/blender_scene.py)",
        "space": "glTF (Y up)",
        "fps": 24,
        "files": [glb],
        "nodes": nodes,
        "animated": {},
    }
    with open(dst, "w") as f:
        json.dump(ref, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
