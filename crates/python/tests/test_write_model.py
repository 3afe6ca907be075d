"""mshconv.write_model: a model into a file or an archive entry, its look into the game folder."""

import pytest

import mshconv
from conftest import MODELS, png


def library_bytes(folder):
    return {p.name: p.read_bytes() for p in folder.glob("*.lib")}


def test_an_unedited_export_with_its_look_changes_nothing(game):
    units = game / "units.rlb"
    before, libs = units.read_bytes(), library_bytes(game)
    archive = mshconv.Archive(units)
    for entry in [e.name for e in archive.entries() if e.type == "MSH"]:
        wear_name = entry.rsplit(".", 1)[0] + ".WEA"
        wear = archive.read(wear_name) if any(e.name == wear_name for e in archive.entries()) else None
        glb = mshconv.convert(archive.read(entry), "glb", game_dir=game, wear=wear).files["model.glb"]
        notes = mshconv.write_model(glb, units, entry=entry, game_dir=game)
        assert all(n.code not in ("look.entry", "look.backup") for n in notes), notes
        assert units.read_bytes() == before, entry
    assert library_bytes(game) == libs
    assert not list(game.glob("*.bak"))


def test_a_file_gets_its_wear_beside_it(game, tmp_path):
    archive = mshconv.Archive(game / "units.rlb")
    tank, wear = archive.read("TANK.MSH"), archive.read("TANK.WEA")
    glb = mshconv.convert(tank, "glb", game_dir=game, wear=wear).files["model.glb"]
    out = tmp_path / "tank.msh"
    mshconv.write_model(glb, out, game_dir=game)
    assert out.read_bytes() == tank
    assert (tmp_path / "tank.wea").read_bytes() == wear


def test_without_a_game_folder_the_model_alone(game, tmp_path):
    units = game / "units.rlb"
    model = MODELS[0].read_bytes()
    out = tmp_path / "m.msh"
    assert mshconv.write_model(model, out) == []
    assert out.read_bytes() == model
    glb = mshconv.convert(model, "glb").files["model.glb"]
    with pytest.raises(mshconv.Error) as e:
        mshconv.write_model(glb, units, entry="NEW.MSH")
    assert e.value.code == "archive.no_such_entry"
    mshconv.write_model(glb, units, entry="NEW.MSH", add=True)
    assert mshconv.Archive(units).read("NEW.MSH") == model
    with pytest.raises(mshconv.Error) as e:
        mshconv.write_model(glb, units, entry="bad/NAME.MSH", add=True)
    assert e.value.code == "archive.bad_name"


def test_a_folder_without_libraries_is_refused(tmp_path):
    glb = mshconv.convert(MODELS[0].read_bytes(), "glb").files["model.glb"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(mshconv.Error) as e:
        mshconv.write_model(glb, tmp_path / "m.msh", game_dir=empty)
    assert e.value.code == "game_dir.no_libraries"
    assert not (tmp_path / "m.msh").exists()


def files_in(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_dry_run_says_what_would_change_and_writes_nothing(game, tmp_path):
    archive = mshconv.Archive(game / "units.rlb")
    tank, wear = archive.read("TANK.MSH"), archive.read("TANK.WEA")
    glb = mshconv.convert(tank, "glb", game_dir=game, wear=wear).files["model.glb"]
    before, out_before = files_in(game), files_in(tmp_path)
    # Unedited into its entry: the archive would get the bytes it has.
    plan = mshconv.write_model(glb, game / "units.rlb", entry="TANK.MSH", game_dir=game, dry_run=True)
    assert isinstance(plan, mshconv.DryRun)
    assert [(f.path, f.change) for f in plan.files] == [(str(game / "units.rlb"), "unchanged")]
    assert plan.files[0].size == len(before["units.rlb"])
    # Into a new file: the model and its WEAR beside it would be made.
    out = tmp_path / "tank.msh"
    plan = mshconv.write_model(glb, out, game_dir=game, dry_run=True)
    assert sorted((f.path, f.size, f.change) for f in plan.files) == sorted(
        [(str(out), len(tank), "new"), (str(tmp_path / "tank.wea"), len(wear), "new")]
    )
    # Another model into the entry: the archive would change.
    other = mshconv.convert(MODELS[0].read_bytes(), "glb").files["model.glb"]
    plan = mshconv.write_model(other, game / "units.rlb", entry="TANK.MSH", dry_run=True)
    assert [f.change for f in plan.files] == ["changed"]
    # The put rule holds in a dry run too.
    with pytest.raises(mshconv.Error) as e:
        mshconv.write_model(other, game / "units.rlb", entry="TANKK.MSH", dry_run=True)
    assert e.value.code == "archive.no_such_entry"
    assert files_in(game) == before and files_in(tmp_path) == out_before, "nothing written"
    # Without dry_run the same call writes, and says what it wrote as notes.
    assert isinstance(mshconv.write_model(other, game / "units.rlb", entry="TANK.MSH"), list)
    assert files_in(game)["units.rlb"] != before["units.rlb"]


def test_a_folder_given_as_the_archive_is_refused(game):
    """Issue 39: a folder where an archive is expected writes nothing."""
    tank = mshconv.Archive(game / "units.rlb").read("TANK.MSH")
    glb = mshconv.convert(tank, "glb").files["model.glb"]
    before = sorted(p.name for p in game.iterdir())
    for game_dir in (None, game):
        with pytest.raises(mshconv.Error) as e:
            mshconv.write_model(glb, game, entry="TANK.MSH", game_dir=game_dir)
        assert e.value.code == "archive.is_folder"
        assert "is a folder, not an archive" in str(e.value) and "units.rlb" in str(e.value)
    with pytest.raises(mshconv.Error) as e:
        mshconv.Archive(game).put("TANK.MSH", glb)
    assert e.value.code == "archive.is_folder"
    assert sorted(p.name for p in game.iterdir()) == before


def test_a_palette_repaint_is_noted(game):
    """Issue 39: grey painted into the palette texture PAL_CAMO becomes its
    nearest palette colour, and write_model says so (look.palette_reduced)."""
    import base64
    import json

    archive = mshconv.Archive(game / "units.rlb")
    out = mshconv.convert(archive.read("TANK.MSH"), "gltf", game_dir=game, wear=archive.read("TANK.WEA"))
    gltf = json.loads(out.files["model.gltf"])
    for image in gltf["images"]:
        data = out.files[image["uri"]]
        if image["name"] == "PAL_CAMO":
            data = png(32, 32, bytes([128, 128, 128, 255]))
        image["uri"] = "data:image/png;base64," + base64.b64encode(data).decode()
    notes = mshconv.write_model(json.dumps(gltf).encode(), game / "units.rlb", entry="TANK.MSH", game_dir=game)
    reduced = [n for n in notes if n.code == "look.palette_reduced"]
    assert len(reduced) == 1, notes
    assert "PAL_CAMO" in reduced[0].message and "1024 of 1024 pixels" in reduced[0].message
