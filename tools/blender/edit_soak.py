"""The edit soak: every model of `gen-fixtures wild` folders through real
Blender 4.2 by glTF with Custom Properties (the CLI, as wild_trip.py's
via_gltf with a binary), with ONE small edit per trip, written back over the
model with --game-dir; what changed must be what the edit touches
(docs/BLENDER.md, "Edit soak"; scripts/soak-blender-edits.sh).

Usage: python edit_soak.py PRISTINE WORK MSHCONV [FOLDER...]

The edits (each in a fresh copy of the model's folder):
- move:   every vertex of one slot mesh object (`<node>|L?G?`, the one with
          coordinates nearest 1 in size, and none another slot draws
          where there is one) +0.25 along its local X. Expected: the
          model's Res3 changes; Res2 (slot and model bounds) and Res7 (the
          triangle records) may; nothing else anywhere.
- normal: the custom normal of one vertex of that object (the first whose
          faces all have area; with the other Blender vertices at its point:
          the glTF import gives each batch its own copy of a shared vertex)
          turned by 45 degrees at all its corners (skipped where the model
          has no Res4: normals it has no table for are not compared).
          Expected: the model's Res4 changes, nothing else anywhere.
- rename: one glTF material recorded from Material.lib (extras.msh.mat0;
          one whose index has no other glTF material where there is one)
          renamed `EDITED<k>`. Expected (docs/MATERIALS.md, "recorded,
          renamed in the editor: a new entry of the new name"): Material.lib
          gains the entry `EDITED<k>`, the model's WEAR changes in row k (the
          material's index) alone, to that name with its legacy id; the
          model and everything else as they were.

Each line: `PASS`/`FAIL`/`SKIP`, the seed, folder, model, edit and what was
edited; a failure its class, the differences beyond the rule (or the change
missing) and the notes of the way back. FOLDER names limit the run; with
EDIT_SOAK_KEEP=1 each trip's folder (WORK/gNNNN-K-EDIT, K the model's place
in the folder's record) and its two GLBs (WORK/gNNNN-K-EDIT-glb) stay.
"""
import json
import math
import os
import pathlib
import shutil
import struct
import subprocess
import sys

import bpy_main
import bpy
import wild_trip

EDITS = ("move", "normal", "rename")
# An edge shorter than this part of the moved coordinates' size turns by
# about half a packed normal step (1/254) when float32 rounds its ends (by
# up to 2^-24 of that size): 254 * 2^-24.
ROUNDED_EDGE = 254 * 2.0**-24


def glb_json(path):
    data = pathlib.Path(path).read_bytes()
    size = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20 : 20 + size])


def slot_vertices(binary, model_bytes, scratch):
    """The vertices each slot of the model draws (by `mshconv inspect
    --json`, its batches over Res6's u16 indices), by slot index."""
    path = pathlib.Path(scratch) / "model.msh"
    path.write_bytes(model_bytes)
    run = cli(binary, "inspect", "--json", str(path))
    if run.returncode != 0:
        return {}
    slots = json.loads(run.stdout).get("slots") or []
    res6 = next((e[3] for e in wild_trip.nres_entries(model_bytes) or [] if e[1] == 6), b"")
    indices = struct.unpack(f"<{len(res6) // 2}H", res6[: len(res6) // 2 * 2])
    out = {}
    for s in slots:
        out[s["index"]] = {
            b["base_vertex"] + i
            for b in s["batches"]
            for i in indices[b["index_start"] : b["index_start"] + b["index_count"]]
        }
    return out


def shared_slots(drawn):
    """The slots that draw a vertex another slot draws too (the recognition
    cannot move such a vertex in place: recognise/mod.rs, Comparison::apply)."""
    out = set()
    for s, vs in drawn.items():
        if any(vs & ws for t, ws in drawn.items() if t != s):
            out.add(s)
    return out


def slot_object(shared):
    """The slot mesh object to edit: among those whose slot shares no vertex
    with another slot where there are any, the one whose largest coordinate
    is nearest 1 in size (ties by name). With whether its slot shares vertices."""
    meshes = [o for o in bpy.data.objects if o.type == "MESH" and "|" in o.name and len(o.data.vertices)]
    if not meshes:
        return None, False

    def slot(o):
        msh = o.get("msh")
        return msh.get("slot") if msh is not None and hasattr(msh, "get") else None

    def scale(o):
        # How far the object's size is from 1 (a move of 0.25 on a mesh
        # of 1e-6 or 1e6 is mostly float32 rounding of its shape).
        size = reach(o)
        return abs(math.log10(size)) if 0 < size < math.inf else math.inf

    alone = [o for o in meshes if slot(o) is not None and slot(o) not in shared]
    chosen = min(alone or meshes, key=lambda o: (scale(o), o.name))
    return chosen, not alone


def reach(o):
    return max(max(abs(c) for c in v.co) for v in o.data.vertices)


def described(part, shared):
    slot = part.get("msh", {}).get("slot") if hasattr(part.get("msh", {}), "get") else None
    return f"object {part.name!r} slot {slot} size {reach(part):.1e}{' (shares vertices)' if shared else ''}"


def edit_move(shared):
    part, is_shared = slot_object(shared)
    if part is None:
        return None
    what = described(part, is_shared) + f" {len(part.data.vertices)} vertices"
    part.data = part.data.copy()
    with_area = {p.index for p in part.data.polygons if has_area(part.data, p)}
    mesh = part.data
    # (An edge of no length stays so: both ends round alike.)
    lengths = ((mesh.vertices[a].co - mesh.vertices[b].co).length for a, b in (e.vertices for e in mesh.edges))
    shortest = min((x for x in lengths if x > 0), default=math.inf)
    for v in part.data.vertices:
        v.co.x += 0.25
    # Float32 rounds the moved coordinates by up to 3e-8: an edge shorter
    # than that collapses, and Blender writes its own normals there.
    flat = sum(1 for p in part.data.polygons if p.index in with_area and not has_area(part.data, p))
    what += f", shortest edge {shortest:.1e}"
    return what + (f", {flat} faces flattened by the rounding" if flat else "")


def has_area(mesh, poly):
    """Whether a face has area: the cross product of two edges from its
    first corner is above 1e-6 of their lengths' product."""
    a = mesh.vertices[poly.vertices[0]].co
    for i in range(1, len(poly.vertices) - 1):
        b, c = mesh.vertices[poly.vertices[i]].co, mesh.vertices[poly.vertices[i + 1]].co
        e1, e2 = b - a, c - a
        if e1.cross(e2).length > 1e-6 * e1.length * e2.length and e1.cross(e2).length > 0:
            return True
    return False


def edit_normal(shared):
    part, is_shared = slot_object(shared)
    if part is None:
        return None
    part.data = part.data.copy()
    mesh = part.data
    bad = set()
    for p in mesh.polygons:
        if not has_area(mesh, p):
            bad.update(p.vertices)
    used = {v for p in mesh.polygons for v in p.vertices}
    # The glTF import gives each primitive (batch) its own vertices: one
    # vertex of the model two batches draw is two in Blender, at one point.
    # A modder's "one vertex" is all of them (and all at that point).
    points = {}
    for v in sorted(used):
        points.setdefault(tuple(mesh.vertices[v].co), set()).add(v)
    chosen, at_point = next(((min(vs), vs) for vs in points.values() if not vs & bad), (None, None))
    if chosen is None:
        return None
    normals = [tuple(n.vector) for n in mesh.corner_normals]
    loops = [lp.index for lp in mesh.loops if lp.vertex_index in at_point]
    n = mesh.corner_normals[loops[0]].vector.copy()
    axis = n.cross((1.0, 0.0, 0.0))
    if axis.length < 0.5:
        axis = n.cross((0.0, 1.0, 0.0))
    turned = (n.normalized() + axis.normalized()).normalized()
    for i in loops:
        normals[i] = tuple(turned)
    mesh.normals_split_custom_set(normals)
    return described(part, is_shared) + (
        f" vertex {chosen} ({len(at_point)} at its point, {len(loops)} corners)"
        f" to {tuple(round(c, 3) for c in turned)}"
    )


def edit_rename(first, lib_names):
    materials = glb_json(first).get("materials", [])
    recorded = [m for m in materials if "mat0" in m.get("extras", {}).get("msh", {})]
    if not recorded:
        return None, None
    per_index = {}
    for m in recorded:
        per_index.setdefault(m["extras"]["msh"]["material"], []).append(m)
    alone = [ms[0] for ms in per_index.values() if len(ms) == 1]
    material = (alone or recorded)[0]
    index = material["extras"]["msh"]["material"]
    new = f"EDITED{index}"
    while new.upper() in lib_names:
        new += "X"
    target = next((m for m in bpy.data.materials if m.name == material["name"]), None)
    if target is None:
        return f"no Blender material {material['name']!r}", None
    target.name = new
    shared = "" if alone else f", shared with {len(per_index[index]) - 1} other glTF materials"
    return f"material {index} {material['name']!r} to {new!r}{shared}", (index, new)


def nres_map(data):
    entries = wild_trip.nres_entries(data)
    return None if entries is None else {e[0]: e for e in entries}


def wear_diff(before, after):
    a = before.decode("cp1251").splitlines()
    b = after.decode("cp1251").splitlines()
    if len(a) != len(b):
        return [("lines", f"{len(a)} -> {len(b)} lines")]
    return [(i - 1, f"{a[i]!r} -> {b[i]!r}") for i in range(len(a)) if a[i] != b[i]]


def changes(pristine, copy, model):
    """What changed: the model's resources, the WEAR's rows, Material.lib's
    added entries, and anything else (as text)."""
    before, after = wild_trip.tree(pristine), wild_trip.tree(copy)
    out = {"model": [], "wear": [], "lib": [], "backup": [], "other": []}
    wear_file = model["wear"] if model["entry"] is None else None
    for p in sorted(set(before) | set(after)):
        if p not in after:
            out["other"].append(f"missing file {p}")
        elif p.lower() == "material.lib.bak" and p not in before and after[p] == before.get(p[:-4]):
            out["backup"].append(p)
        elif p not in before:
            out["other"].append(f"new file {p}")
        elif before[p] == after[p]:
            continue
        elif p == model["file"] and model["entry"] is None:
            out["model"] = wild_trip.model_changes(before[p], after[p])
        elif p == wear_file:
            out["wear"] = wear_diff(before[p], after[p])
        elif p == model["file"] or p.lower() == "material.lib":
            a, b = nres_map(before[p]), nres_map(after[p])
            if a is None or b is None:
                out["other"].append(f"{p}: changed")
                continue
            for name in b:
                if name not in a:
                    (out["lib"] if p.lower() == "material.lib" else out["other"]).append(name)
            for name in a:
                if name not in b:
                    out["other"].append(f"{p}: -entry {name}")
                elif a[name][1:] == b[name][1:]:
                    continue
                elif name == model["entry"]:
                    out["model"] = wild_trip.model_changes(a[name][3], b[name][3])
                elif name == model["wear"] and p == model["file"]:
                    out["wear"] = wear_diff(a[name][3], b[name][3])
                else:
                    out["other"].append(f"{p}:{name}: changed")
        else:
            out["other"] += wild_trip.file_changes(p, before[p], after[p])
    return out


def judge(edit, got, renamed):
    """(missing, beyond): what the edit must change and did not, and what
    changed beyond the rule."""
    model = [m for m in got["model"] if m != "container bytes"] or got["model"]
    beyond = [f"other: {o}" for o in got["other"]]
    missing = []
    if edit == "move":
        if "Res3(positions)" not in model:
            missing.append("Res3 unchanged")
        beyond += [f"model: {m}" for m in model if m.split("(")[0] not in ("Res2", "Res3", "Res7")]
    elif edit == "normal":
        if "Res4(normals)" not in model:
            missing.append("Res4 unchanged")
        beyond += [f"model: {m}" for m in model if m != "Res4(normals)"]
    if edit in ("move", "normal"):
        beyond += [f"WEAR row {r}: {t}" for r, t in got["wear"]]
        beyond += [f"Material.lib: +{n}" for n in got["lib"]]
        beyond += [f"other: new file {b}" for b in got["backup"]]
    else:
        index, new = renamed
        beyond += [f"model: {m}" for m in model]
        rows = {r: t for r, t in got["wear"]}
        if index not in rows or not rows[index].endswith(f" {new}'"):
            missing.append(f"WEAR row {index} not renamed to {new}")
        beyond += [f"WEAR row {r}: {t}" for r, t in got["wear"] if r != index]
        if new not in got["lib"]:
            missing.append(f"Material.lib has no entry {new}")
        beyond += [f"Material.lib: +{n}" for n in got["lib"] if n != new]
    return missing, beyond


def failure_class(missing, beyond, notes, what):
    if "import.original_rebuilt" in notes:
        return "rebuilt_shared" if "(shares vertices)" in what else "rebuilt"
    if missing and not beyond:
        return "edit_lost_shared" if "shared with" in what else "edit_lost"
    shortest = float(what.split("shortest edge ")[-1].split(",")[0]) if "shortest edge " in what else math.inf
    size = float(what.split(" size ")[-1].split(" ")[0]) if " size " in what else 0.0
    if ("flattened by the rounding" in what or shortest < (size + 0.25) * ROUNDED_EDGE) and all(
        b == "model: Res4(normals)" for b in beyond
    ):
        # The move's float32 rounding (2^-24 of the coordinates) took faces' area
        # or turned them by more than a packed step: Blender wrote its own
        # normals there (a change Blender made, not the recognition).
        return "rounded_by_move"
    kinds = sorted({b.split(":")[0].split(" row")[0] if not b.startswith("model:") else b.split("(")[0].replace("model: ", "")
                    for b in beyond})
    return ("edit_lost+" if missing else "beyond_") + "+".join(k.replace(" ", "_") for k in kinds)


def model_bytes(folder, model):
    path, entry = wild_trip.target(folder, model)
    data = pathlib.Path(path).read_bytes()
    return nres_map(data)[entry][3] if entry else data


def cli(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def trip(pristine, work, folder, model, edit, binary):
    """One edited trip: (status, what, class, details, notes)."""
    pristine_dir = pathlib.Path(pristine) / folder["dir"]
    n = folder["models"].index(model)
    copy = pathlib.Path(work) / f"{folder['dir']}-{n}-{edit}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(pristine_dir, copy)
    glb = pathlib.Path(work) / f"{folder['dir']}-{n}-{edit}-glb"
    glb.mkdir(exist_ok=True)
    first, second = glb / "export.glb", glb / "blender.glb"
    path, entry = wild_trip.target(copy, model)
    where = f"{path}:{entry}" if entry else path
    notes = []
    try:
        run = cli(binary, "convert", where, str(first), "--game-dir", str(copy))
        if run.returncode != 0:
            raise RuntimeError(f"mshconv export: {run.stderr.strip()}")
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=str(first))
        renamed = None
        if edit == "normal" and not any(e[1] == 4 for e in wild_trip.nres_entries(model_bytes(copy, model)) or []):
            # Normals the original has no table for are Blender's own: not compared.
            return "SKIP", "no Res4: the model keeps no normals", "", [], []
        if edit in ("move", "normal"):
            shared = shared_slots(slot_vertices(binary, model_bytes(copy, model), glb))
            what = (edit_move if edit == "move" else edit_normal)(shared)
        else:
            lib = nres_map((copy / "Material.lib").read_bytes()) if (copy / "Material.lib").exists() else {}
            what, renamed = edit_rename(first, {n.upper() for n in (lib or {})})
        if what is None or (edit == "rename" and renamed is None):
            return "SKIP", what or "nothing to edit", "", [], []
        bpy.ops.export_scene.gltf(filepath=str(second), export_format="GLB", export_extras=True)
        run = cli(binary, "convert", str(second), where, "--game-dir", str(copy))
        notes = sorted({ln.split("]")[0].split("[")[-1] for ln in run.stderr.splitlines() if ln.startswith("note[")})
        if run.returncode != 0:
            raise RuntimeError(f"mshconv import: {run.stderr.strip().splitlines()[-1]}")
        missing, beyond = judge(edit, changes(pristine_dir, copy, model), renamed)
    except Exception as e:  # noqa: BLE001 - a failed model, the soak goes on
        text = str(e).splitlines()[0] if str(e) else ""
        return "FAIL", locals().get("what") or "", "error", [f"error: {type(e).__name__}: {text}"], notes
    finally:
        if not os.environ.get("EDIT_SOAK_KEEP"):
            shutil.rmtree(copy, ignore_errors=True)
            shutil.rmtree(glb, ignore_errors=True)
    if missing or beyond:
        return "FAIL", what, failure_class(missing, beyond, notes, what), missing + beyond, notes
    return "PASS", what, "", [], notes


def main():
    pristine, work, binary = sys.argv[1:4]
    only = set(sys.argv[4:])
    pathlib.Path(work).mkdir(parents=True, exist_ok=True)
    folders = json.loads((pathlib.Path(pristine) / "wild.json").read_text())
    for f in folders:
        if only and f["dir"] not in only:
            continue
        for model in f["models"]:
            for edit in EDITS:
                status, what, klass, details, notes = trip(pristine, work, f, model, edit, binary)
                line = (f"{status} seed={f['seed']} folder={f['index']} ({f['dir']}) "
                        f"model={wild_trip.label(model)} edit={edit} [{what}]")
                if status == "FAIL":
                    line += f" class={klass} | " + "; ".join(details[:8]) + " | notes: " + ",".join(notes)
                print(line, flush=True)


bpy_main.run(main)
