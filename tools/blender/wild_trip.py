"""The unedited Blender trip of one wild model (scripts/soak-blender.sh,
crates/python/tests_blender/test_wild.py): the two ways a modder goes, each in
a fresh copy of the model's game folder, and what changed.

- addon: bpy.ops.import_scene.parkan_msh (with the game folder), then
  bpy.ops.export_scene.parkan_msh back over the same file or entry;
- gltf: the model to GLB with its look (`mshconv convert MODEL X.glb
  --game-dir G`, or the Python package's `convert`), Blender's glTF import and
  export with Custom Properties (its other options at their defaults), then
  back over the model it came from (`mshconv convert Y.glb MODEL --game-dir
  G`, or `write_model`).

The folder must come back byte for byte: no file changed, added or removed.
"""
import pathlib
import shutil
import struct
import subprocess

import bpy

RESOURCES = {1: "nodes", 2: "slots", 3: "positions", 4: "normals", 5: "uv", 6: "indices",
             7: "triangles", 8: "keys", 9: "res9", 10: "names", 13: "batches", 15: "res15",
             16: "res16", 17: "res17", 18: "res18", 19: "map", 20: "res20"}


def nres_entries(data):
    """The entries of an NRes file as (name, type, attrs, payload), or None."""
    if len(data) < 16 or data[:4] != b"NRes":
        return None
    count = struct.unpack_from("<i", data, 8)[0]
    directory = len(data) - 64 * count
    if count < 0 or directory < 16:
        return None
    out = []
    for i in range(count):
        at = directory + 64 * i
        type_id, a1, a2, size, a3 = struct.unpack_from("<5I", data, at)
        name = data[at + 20 : at + 56].split(b"\0")[0].decode("latin-1")
        offset = struct.unpack_from("<I", data, at + 56)[0]
        out.append((name, type_id, (a1, a2, a3), data[offset : offset + size]))
    return out


def model_changes(before, after):
    """Which resources of a model changed: `Res4(normals)`, `+Res20`, ..."""
    a, b = nres_entries(before), nres_entries(after)
    if a is None or b is None:
        return ["not NRes"]
    by_type_a = {e[1]: e for e in a}
    by_type_b = {e[1]: e for e in b}
    out = []
    for t in sorted(set(by_type_a) | set(by_type_b)):
        label = f"Res{t}({RESOURCES.get(t, '?')})"
        if t not in by_type_b:
            out.append(f"-{label}")
        elif t not in by_type_a:
            out.append(f"+{label}")
        elif by_type_a[t][3] != by_type_b[t][3]:
            out.append(label)
        elif by_type_a[t][2] != by_type_b[t][2]:
            out.append(f"{label}.attrs")
    if not out and [e[1] for e in a] != [e[1] for e in b]:
        out.append("entry order")
    return out or ["container bytes"]


def file_changes(path, before, after):
    """What changed in one file: archive entries added/removed/changed, a
    model's resources."""
    if path.lower().endswith(".msh"):
        return [f"{path}: " + ",".join(model_changes(before, after))]
    a, b = nres_entries(before), nres_entries(after)
    if a is None or b is None:
        return [f"{path}: changed"]
    names_a = [e[0] for e in a]
    names_b = [e[0] for e in b]
    out = []
    added = [n for n in names_b if n not in names_a]
    removed = [n for n in names_a if n not in names_b]
    if added:
        out.append(f"{path}: +entries {added}")
    if removed:
        out.append(f"{path}: -entries {removed}")
    old = {e[0]: e for e in a}
    for e in b:
        o = old.get(e[0])
        if o is None or o[1:] == e[1:]:
            continue
        if e[1] == 0x0048534D:
            out.append(f"{path}:{e[0]}: " + ",".join(model_changes(o[3], e[3])))
        elif o[3] != e[3]:
            out.append(f"{path}:{e[0]}: payload")
        else:
            out.append(f"{path}:{e[0]}: attrs {o[2]} -> {e[2]}")
    return out or [f"{path}: entry order or layout"]


def tree(root):
    root = pathlib.Path(root)
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def differences(pristine, work):
    before, after = tree(pristine), tree(work)
    out = [f"new file {p}" for p in sorted(set(after) - set(before))]
    out += [f"missing file {p}" for p in sorted(set(before) - set(after))]
    for p in sorted(set(before) & set(after)):
        if before[p] != after[p]:
            out += file_changes(p, before[p], after[p])
    return out


def target(folder, model):
    path = str(pathlib.Path(folder) / model["file"])
    return path, model["entry"] or ""


def via_addon(folder, model, notes):
    import mshconv

    bpy.ops.wm.read_factory_settings(use_empty=True)
    import mshconv_blender

    if not hasattr(bpy.types, "IMPORT_SCENE_OT_parkan_msh"):
        mshconv_blender.register()
    path, entry = target(folder, model)
    bpy.ops.import_scene.parkan_msh(filepath=path, entry=entry, game_dir=str(folder))
    write = mshconv.write_model

    def recording(*args, **kwargs):
        result = write(*args, **kwargs)
        notes.extend(f"{n.code}" for n in result)
        return result

    mshconv.write_model = recording
    try:
        bpy.ops.export_scene.parkan_msh(filepath=path, entry=entry, game_dir=str(folder))
    finally:
        mshconv.write_model = write


def blender_gltf(first, second):
    """Blender's glTF import with its defaults, then its export with Custom
    Properties (the other options at their defaults)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=str(first))
    bpy.ops.export_scene.gltf(filepath=str(second), export_format="GLB", export_extras=True)


def via_gltf(folder, model, notes, binary=None):
    """The README's glTF loop: by the CLI `binary`, else by the Python package
    (`mshconv.convert` with the game folder and WEAR, `mshconv.write_model`)."""
    path, entry = target(folder, model)
    where = f"{path}:{entry}" if entry else path
    out = pathlib.Path(folder).parent / (pathlib.Path(folder).name + "-glb")
    out.mkdir(exist_ok=True)
    first, second = out / "export.glb", out / "blender.glb"
    if binary is None:
        import mshconv

        if entry:
            archive = mshconv.Archive(path)
            data, wear = archive.read(entry), archive.read(model["wear"])
        else:
            data = pathlib.Path(path).read_bytes()
            wear = (pathlib.Path(folder) / model["wear"]).read_bytes()
        first.write_bytes(mshconv.convert(data, "glb", game_dir=str(folder), wear=wear).files["model.glb"])
        blender_gltf(first, second)
        written = mshconv.write_model(second.read_bytes(), path, entry=entry or None, game_dir=str(folder))
        notes.extend(n.code for n in written)
    else:
        run = subprocess.run([binary, "convert", where, str(first), "--game-dir", str(folder)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"mshconv export: {run.stderr.strip()}")
        blender_gltf(first, second)
        run = subprocess.run([binary, "convert", str(second), where, "--game-dir", str(folder)],
                             capture_output=True, text=True)
        notes.extend(line.split("]")[0].split("[")[-1] for line in run.stderr.splitlines() if line.startswith("note["))
        if run.returncode != 0:
            raise RuntimeError(f"mshconv import: {run.stderr.strip()}")
    shutil.rmtree(out)


def trip(pristine, work, folder, model, way, binary=None):
    """One unedited trip of `model` of `folder` (a wild.json record) in a fresh
    copy under `work`: the differences from the pristine folder (empty: byte
    for byte) and the notes of the way back."""
    copy = pathlib.Path(work) / f"{folder['dir']}-{way}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(pathlib.Path(pristine) / folder["dir"], copy)
    notes = []
    try:
        if way == "addon":
            via_addon(copy, model, notes)
        else:
            via_gltf(copy, model, notes, binary)
        diff = differences(pathlib.Path(pristine) / folder["dir"], copy)
    except Exception as e:  # noqa: BLE001 - a failed model, the soak goes on
        diff = [f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"]
    shutil.rmtree(copy, ignore_errors=True)
    return diff, sorted(set(notes))


def label(model):
    """`units.rlb:W3_0.MSH` or `models/w3_1.msh`."""
    return model["file"] + (":" + model["entry"] if model["entry"] else "")


def failure_class(diff, notes):
    """The class of a failed trip (docs/BLENDER.md, "Soak"), from what changed."""
    text = "; ".join(diff)
    if "non_finite" in text or "NaN or infinity" in text:
        return "nan_normals"
    if "+entries" in text:
        return "material_renamed"
    if "import.material_assigned" in notes:
        return "material_extras_lost"
    if "import.original_rebuilt" in notes:
        return "rebuilt"
    models = ",".join(d.rsplit(": ", 1)[-1] for d in diff if ".msh" in d.lower())
    if "import.original_edited" in notes:
        if "Res8" in models:
            return "animation_rewritten"
        if "Res3" in models:
            return "positions_changed"
        if "Res4" in models:
            return "normals_changed"
        return "edited"
    if not notes or notes == ["archive.replaced"]:
        if models and all(m == "Res8(keys)" for m in models.split(",")):
            return "keys_negated"
    return "other"
