"""What the add-on's export writes, and what it says, with real Blender 4.2:
only the model it imported (the rest of the scene left out and named), the
look into the preference's game folder, a dry run, errors as reports."""

import re
import shutil

import pytest

import mshconv
from conftest import ROOT, SMALL, repaint_one_texture

WALKER = SMALL / "models" / "m095_walker.msh"
ROBOT = SMALL / "models" / "m242_robot.msh"


def files_in(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def activate(bpy, collection_name):
    """Makes an object of the model's collection the active one."""
    obj = next(iter(bpy.data.collections[collection_name].all_objects))
    bpy.context.view_layer.objects.active = obj


def test_the_default_scene_is_left_out_and_said(blender, tmp_path, capfd):
    bpy = blender
    bpy.ops.wm.read_factory_settings(use_empty=False)
    assert {"Cube", "Camera", "Light"} <= {o.name for o in bpy.data.objects}
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER)) == {"FINISHED"}
    out = tmp_path / "walker.msh"
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == WALKER.read_bytes(), "the Cube is not a node of the model"
    said = capfd.readouterr().out
    line = next(l for l in said.splitlines() if "[addon.left_out]" in l)
    assert all(name in line for name in ("Camera", "Cube", "Light")), line
    assert "Cube" in bpy.data.objects, "left out, not removed"


def test_two_imported_models_each_export_only_itself(blender, tmp_path, capfd):
    bpy = blender
    walker, robot = tmp_path / "walker.msh", tmp_path / "robot.msh"
    shutil.copyfile(WALKER, walker)
    shutil.copyfile(ROBOT, robot)
    bpy.ops.import_scene.parkan_msh(filepath=str(walker))
    bpy.ops.import_scene.parkan_msh(filepath=str(robot))
    bpy.data.collections["walker"].hide_viewport = True
    # The active object chooses: each model comes back byte for byte, alone.
    for name, source in (("walker", WALKER), ("robot", ROBOT)):
        activate(bpy, name)
        out = tmp_path / f"out_{name}.msh"
        capfd.readouterr()
        assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
        assert out.read_bytes() == source.read_bytes(), name
        other = "robot" if name == "walker" else "walker"
        left = next(l for l in capfd.readouterr().out.splitlines() if "[addon.left_out]" in l)
        assert any(o.name in left for o in bpy.data.collections[other].all_objects), left
    # Nothing active: the model imported from the file written.
    bpy.context.view_layer.objects.active = None
    assert bpy.ops.export_scene.parkan_msh(filepath=str(walker)) == {"FINISHED"}
    assert walker.read_bytes() == WALKER.read_bytes()
    # Nothing active and a file neither came from: refused, nothing written.
    with pytest.raises(RuntimeError, match=r"\[addon.which_model\].*2 imported models") as e:
        bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "which.msh"))
    assert "Traceback" not in str(e.value)
    assert not (tmp_path / "which.msh").exists()
    # The active object's model written over the other's source: refused.
    activate(bpy, "robot")
    with pytest.raises(RuntimeError, match=r"\[addon.which_model\].*walker"):
        bpy.ops.export_scene.parkan_msh(filepath=str(walker))
    assert walker.read_bytes() == WALKER.read_bytes()


def test_a_repaint_goes_into_the_preferences_game_folder(preference, game):
    import bpy

    preference.game_dir = str(game)
    units = game / "units.rlb"
    before = files_in(game)
    # No game folder given to either operator: the preference's.
    assert bpy.ops.import_scene.parkan_msh(filepath=str(units), entry="TANK.MSH") == {"FINISHED"}
    assert len(bpy.data.images) > 0, "textured from the preference's folder"
    repaint_one_texture(bpy)
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH") == {"FINISHED"}
    after = files_in(game)
    assert after["Textures.lib"] != before["Textures.lib"]
    assert after["Textures.lib.bak"] == before["Textures.lib"]
    assert mshconv.Archive(units).read("TANK.MSH") == mshconv.Archive(SMALL / "game" / "units.rlb").read("TANK.MSH")
    # The export's own option overrides the preference (here a folder without libraries).
    empty = game.parent / "empty"
    empty.mkdir()
    preference.game_dir = str(empty)
    with pytest.raises(RuntimeError, match=r"\[game_dir.no_libraries\]"):
        bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH")
    written = files_in(game)
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game)) == {"FINISHED"}
    assert files_in(game) == written, "the look already there: nothing changes"


def test_a_dry_run_says_the_files_and_writes_nothing(blender, game, capfd):
    bpy = blender
    units = game / "units.rlb"
    before = files_in(game)
    bpy.ops.import_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game))
    repaint_one_texture(bpy, "TANK_BODY")
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_msh(
        filepath=str(units), entry="TANK.MSH", game_dir=str(game), dry_run=True
    ) == {"FINISHED"}
    said = capfd.readouterr().out
    assert files_in(game) == before, "a dry run writes nothing"
    planned = dict(re.findall(r"would write (\S+) \((\w+), \d+ bytes\)", said))
    assert planned == {
        str(game / "Textures.lib.bak"): "backup",
        str(game / "Textures.lib"): "changed",
        str(units): "unchanged",
    }, said
    assert "nothing written" in said
    # The repainted texture another model of the folder shows too: named, as the CLI names it.
    assert "[look.shared_edit] Textures.lib: TANK_BODY.0 is edited, and 1 other model shows it too: models/pipe.msh\n" in said, said
    # The same export without the dry run writes what it said.
    assert bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANK.MSH", game_dir=str(game)) == {"FINISHED"}
    after = files_in(game)
    assert {n for n in after if after[n] != before.get(n)} == {"Textures.lib", "Textures.lib.bak"}


def test_errors_are_reports_with_their_code_never_tracebacks(blender, game):
    bpy = blender
    units = game / "units.rlb"
    before = units.read_bytes()
    bpy.ops.import_scene.parkan_msh(filepath=str(units), entry="TANK.MSH")
    with pytest.raises(RuntimeError) as e:
        bpy.ops.export_scene.parkan_msh(filepath=str(units), entry="TANKK.MSH")
    assert re.search(r"\[archive.no_such_entry\].*TANK.MSH", str(e.value)), str(e.value)
    assert "Traceback" not in str(e.value)
    assert units.read_bytes() == before
    # A file the library never sees (the import reads a loose model itself).
    with pytest.raises(RuntimeError) as e:
        bpy.ops.import_scene.parkan_msh(filepath=str(game / "no_such.msh"))
    assert "[io.not_found]" in str(e.value) and "Traceback" not in str(e.value)


def test_the_add_on_codes_are_documented():
    from mshconv_blender.codes import CODES

    docs = (ROOT / "docs" / "BLENDER.md").read_text()
    assert [c for c in CODES if f"`{c}`" not in docs] == []
    package = ROOT / "crates/python/python/mshconv_blender"
    source = "".join(p.read_text() for p in package.glob("*.py") if p.name != "codes.py")
    used = set(re.findall(r"\"(addon\.[a-z_]+)\"", source))
    assert used == set(CODES), used ^ set(CODES)
