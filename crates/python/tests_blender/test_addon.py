"""The Blender add-on mshconv_blender with real Blender 4.2: import, what Blender holds, export."""

import re
import shutil

import pytest

import mshconv
from conftest import GAME, MODELS, ROOT, SMALL, repaint_one_texture


def objects_in(bpy, coll_name):
    return [o for o in bpy.data.collections[coll_name].objects]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_every_model_comes_back_byte_for_byte(blender, path, tmp_path):
    bpy = blender
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    glb = mshconv.convert(path.read_bytes(), "glb").files["model.glb"]
    model = bpy.data.collections[path.stem]
    # Every object in the model's collection or its LOD/group collections, none at scale 0.
    everything = list(model.all_objects)
    assert len(everything) == len(bpy.data.objects) > 0
    assert all(any(o.scale) for o in everything)
    for coll in model.children:
        assert coll.hide_viewport and coll.hide_render
        assert coll.name.startswith(f"{path.stem} LOD ")
        for obj in coll.objects:
            assert obj.type == "MESH" and not obj.name.endswith("|L0G0")
            assert tuple(obj.scale) == (1.0, 1.0, 1.0)
    # What is shown is LOD 0 group 0 (a legacy model's slots have other names).
    shown = [o.name for o in model.objects if o.type == "MESH" and re.search(r"\|L\d+G\d+$", o.name)]
    assert all(name.endswith("|L0G0") for name in shown)
    # Nodes are empties named after the game's nodes, meshes hang under them.
    assert all(o.parent is not None for o in everything if o.type == "MESH")
    assert b"msh" in glb  # the export the add-on imported carries the model
    out = tmp_path / path.name
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()
    # The LOD/group collections are as they were after the export.
    assert all(c.hide_viewport for c in model.children)
    assert all(any(o.scale) for o in model.all_objects)


def test_animation_becomes_actions_and_the_frame_range(blender, tmp_path):
    bpy = blender
    path = SMALL / "models" / "m242_robot.msh"
    bpy.ops.import_scene.parkan_msh(filepath=str(path))
    assert len(bpy.data.actions) == 3
    scene = bpy.context.scene
    assert scene.render.fps == 24
    last = max(int(a.frame_range[1]) for a in bpy.data.actions)
    assert (scene.frame_start, scene.frame_end) == (0, last) and last > 0


def test_clips_beside_give_one_action_set_per_clip(blender, tmp_path):
    bpy = blender
    model = tmp_path / "robot.msh"
    shutil.copyfile(SMALL / "models" / "m242_robot.msh", model)
    (tmp_path / "robot.clips.json").write_text('{"clips": [{"name": "walk", "first": 0, "last": 20}, {"name": "idle", "first": 20, "last": 40}]}')
    bpy.ops.import_scene.parkan_msh(filepath=str(model))
    names = sorted(a.name for a in bpy.data.actions)
    assert any(n.startswith("walk") for n in names) and any(n.startswith("idle") for n in names), names


def test_an_archive_entry_goes_back_into_the_archive(blender, tmp_path):
    bpy = blender
    units = tmp_path / "units.rlb"
    shutil.copyfile(GAME / "units.rlb", units)
    before = units.read_bytes()
    entries = [e.name for e in mshconv.Archive(units).entries() if e.type == "MSH"]
    assert entries
    for entry in entries:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        assert bpy.ops.import_scene.parkan_msh(filepath=str(units), entry=entry) == {"FINISHED"}
        assert entry.rsplit(".", 1)[0] in bpy.data.collections
        assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry=entry) == {"FINISHED"}
        assert units.read_bytes() == before, entry
    # A new entry only with add=True.
    with pytest.raises(RuntimeError, match=r"\[archive.no_such_entry\]"):
        bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="COPY.MSH")
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="COPY.MSH", add=True) == {"FINISHED"}
    archive = mshconv.Archive(units)
    assert archive.read("COPY.MSH") == archive.read(entries[-1])


def test_an_archive_whose_entries_share_a_payload_is_not_exported_into(blender, tmp_path):
    """Every model entry of a copy of units.rlb points at TANK.MSH's payload
    (valid NRes, but an edit would copy it once per entry): the export into
    it is refused with archive.entries_overlap and the file is unchanged."""
    bpy = blender
    units = bytearray((GAME / "units.rlb").read_bytes())
    count = int.from_bytes(units[8:12], "little")
    directory = len(units) - 64 * count
    tank = units[directory + 12 : directory + 16], units[directory + 56 : directory + 60]
    for i in range(1, count):
        at = directory + 64 * i
        if units[at : at + 4] == b"MSH\0":
            units[at + 12 : at + 16], units[at + 56 : at + 60] = tank
    shared = tmp_path / "units.rlb"
    shared.write_bytes(bytes(units))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(GAME / "units.rlb"), entry="TANK.MSH") == {"FINISHED"}
    for add in (False, True):
        entry = "COPY.MSH" if add else "TANK.MSH"
        with pytest.raises(RuntimeError, match=r"\[archive.entries_overlap\]"):
            bpy.ops.export_scene.parkan_msh(filepath=str(shared), entry=entry, add=add)
        assert shared.read_bytes() == bytes(units)


def test_errors_are_reports_with_the_code(blender, tmp_path):
    bpy = blender
    with pytest.raises(RuntimeError, match=r"\[request.entry_required\].*TANK.MSH"):
        bpy.ops.import_scene.parkan_msh(filepath=str(GAME / "units.rlb"))
    with pytest.raises(RuntimeError, match=r"\[input.no_such_entry\]"):
        bpy.ops.import_scene.parkan_msh(filepath=str(GAME / "units.rlb"), entry="NOPE.MSH")
    bad = SMALL / "damaged" / "anim4__missing_res01.msh"
    with pytest.raises(RuntimeError, match=r"\[[a-z0-9_]+\.[a-z0-9_]+\]"):
        bpy.ops.import_scene.parkan_msh(filepath=str(bad))
    assert len(bpy.data.objects) == 0


def test_the_game_folder_gives_materials_with_textures(blender):
    bpy = blender
    assert bpy.ops.import_scene.parkan_msh(
        filepath=str(GAME / "units.rlb"), entry="TANK.MSH", game_dir=str(GAME)
    ) == {"FINISHED"}
    assert len(bpy.data.images) > 0
    textured = [
        m for m in bpy.data.materials
        if m.use_nodes and any(n.type == "TEX_IMAGE" and n.image for n in m.node_tree.nodes)
    ]
    assert textured


def test_moved_vertices_change_the_model(blender, tmp_path):
    bpy = blender
    path = SMALL / "models" / "m242_robot.msh"
    bpy.ops.import_scene.parkan_msh(filepath=str(path))
    hull = bpy.data.objects["hull|L0G0"]
    for v in hull.data.vertices:
        v.co.z += 0.25
    out = tmp_path / "edited.msh"
    bpy.ops.export_scene.parkan_msh(filepath=str(out))
    edited = out.read_bytes()
    assert edited != path.read_bytes()
    assert len(edited) == len(path.read_bytes()), "moved vertices change bytes in place"
    assert mshconv.validate(edited).valid
    # Back in Blender: the hull is higher by the edit.
    def hull_zs(model):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.parkan_msh(filepath=str(model))
        return [v.co.z for v in bpy.data.objects["hull|L0G0"].data.vertices]

    before, after = hull_zs(path), hull_zs(out)
    assert len(before) == len(after)
    assert all(abs(b + 0.25 - a) < 1e-4 for b, a in zip(before, after))


def test_workbench_screenshot(blender, tmp_path):
    """The README's picture: the fixture game's tank, textured, rendered by
    Workbench. MSHCONV_SCREENSHOT=PATH keeps it (docs/images/blender-addon.png)."""
    import os

    import mathutils

    bpy = blender
    bpy.ops.import_scene.parkan_msh(filepath=str(GAME / "units.rlb"), entry="TANK.MSH", game_dir=str(GAME))
    scene = bpy.context.scene
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.color_type = "TEXTURE"
    scene.render.resolution_x, scene.render.resolution_y = 640, 400
    corners = [
        o.matrix_world @ mathutils.Vector(c)
        for o in scene.objects
        if o.type == "MESH" and o.visible_get()
        for c in o.bound_box
    ]
    lo = mathutils.Vector([min(p[i] for p in corners) for i in range(3)])
    hi = mathutils.Vector([max(p[i] for p in corners) for i in range(3)])
    center, size = (lo + hi) / 2, (hi - lo).length
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    scene.camera = camera
    camera.location = center + mathutils.Vector((1.0, -1.5, 0.9)).normalized() * size * 1.9
    camera.rotation_euler = (center - camera.location).to_track_quat("-Z", "Y").to_euler()
    out = os.environ.get("MSHCONV_SCREENSHOT") or str(tmp_path / "shot.png")
    scene.render.filepath = out
    assert bpy.ops.render.render(write_still=True) == {"FINISHED"}
    image = bpy.data.images.load(out)
    pixels = list(image.pixels)
    colours = {tuple(round(v, 2) for v in pixels[i : i + 3]) for i in range(0, len(pixels), 4 * 97)}
    assert image.size[:] == (640, 400) and len(colours) > 50, "a textured model, not an empty frame"


def test_a_changed_key_changes_the_animation(blender, tmp_path):
    bpy = blender
    path = SMALL / "models" / "m242_robot.msh"

    def location_at(model, frame):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.parkan_msh(filepath=str(model))
        obj = next(o for o in bpy.data.objects if o.animation_data and o.animation_data.action)
        bpy.context.scene.frame_set(frame)
        return obj.name, obj.location.copy()

    bpy.ops.import_scene.parkan_msh(filepath=str(path))
    obj = next(o for o in bpy.data.objects if o.animation_data and o.animation_data.action)
    curve = next(c for c in obj.animation_data.action.fcurves if c.data_path == "location")
    key = curve.keyframe_points[len(curve.keyframe_points) // 2]
    frame = int(round(key.co[0]))
    key.co[1] += 0.5
    key.handle_left[1] += 0.5
    key.handle_right[1] += 0.5
    curve.update()
    out = tmp_path / "rekeyed.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    edited = out.read_bytes()
    assert edited != path.read_bytes() and mshconv.validate(edited).valid
    name, before = location_at(path, frame)
    name_after, after = location_at(out, frame)
    assert name == name_after
    moved = [abs(a - b) for a, b in zip(after, before)]
    assert max(moved) > 0.4, (before, after)


def test_the_look_goes_back_into_the_game_folder(blender, tmp_path):
    bpy = blender
    game = tmp_path / "game"
    shutil.copytree(GAME, game)
    units = game / "units.rlb"
    before = {p.name: p.read_bytes() for p in game.iterdir() if p.is_file()}
    bpy.ops.import_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game))
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game)) == {"FINISHED"}
    assert {p.name: p.read_bytes() for p in game.iterdir() if p.is_file()} == before, "unedited: nothing changes"
    # Repaint one texture: Textures.lib changes (after its backup), the model does not.
    repaint_one_texture(bpy)
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game)) == {"FINISHED"}
    assert (game / "Textures.lib").read_bytes() != before["Textures.lib"]
    assert (game / "Textures.lib.bak").read_bytes() == before["Textures.lib"]
    archive = mshconv.Archive(units)
    assert archive.read("TANK.MSH") == mshconv.Archive(GAME / "units.rlb").read("TANK.MSH")


def test_another_material_on_a_part(blender, tmp_path):
    """Faces given another game material (a material named `mat<k>`) come back with it."""
    import json
    import struct

    bpy = blender
    path = SMALL / "models" / "m242_robot.msh"

    def materials_of(msh, node):
        glb = mshconv.convert(msh, "glb").files["model.glb"]
        doc = json.loads(glb[20 : 20 + struct.unpack_from("<I", glb, 12)[0]])
        mesh = next(n["mesh"] for n in doc["nodes"] if n.get("name") == f"{node}|L0G0")
        return {doc["materials"][p["material"]]["name"].split("#")[0] for p in doc["meshes"][mesh]["primitives"]}

    bpy.ops.import_scene.parkan_msh(filepath=str(path))
    hull = bpy.data.objects["hull|L0G0"]
    before = materials_of(path.read_bytes(), "hull")
    other = sorted(
        {m.name.split("#")[0].split(".")[0] for m in bpy.data.materials} - before
    )[0]
    new = bpy.data.materials.get(other) or bpy.data.materials.new(other)
    for slot in hull.material_slots:
        slot.material = new
    out = tmp_path / "recoloured.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert mshconv.validate(out.read_bytes()).valid
    assert materials_of(out.read_bytes(), "hull") == {other}, (before, other)
