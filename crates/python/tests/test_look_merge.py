"""An older export never reverts a library edit (issue 39, part 5): write_model's
way back of the look is three-way (the export's record, the library now, the file)."""

import pytest

import mshconv
from gltf_edits import repaint

# Colours 565 and 4444 hold exactly.
GREEN = (0x00, 0xFF, 0x00, 0xFF)
MAGENTA = (0xFF, 0x00, 0x88, 0xFF)


def texture(game, name):
    return mshconv.Archive(game / "Textures.lib").read(name)


def libraries(game):
    return {p.name: p.read_bytes() for p in game.glob("*.lib")}


def codes(notes):
    return [n.code for n in notes]


def test_an_older_export_keeps_a_library_edit_made_since(game):
    units = game / "units.rlb"
    archive = mshconv.Archive(units)
    old = mshconv.convert(archive.read("TANK.MSH"), "glb", game_dir=game, wear=archive.read("TANK.WEA"))
    old = old.files["model.glb"]
    # Another model's repaint of the texture TANK shares with it.
    pipe = game / "models" / "pipe.msh"
    pipe_glb = mshconv.convert(
        pipe.read_bytes(), "glb", game_dir=game, wear=(game / "models" / "pipe.wea").read_bytes()
    ).files["model.glb"]
    before = texture(game, "TANK_BODY.0")
    notes = mshconv.write_model(repaint(pipe_glb, "TANK_BODY.0", GREEN), pipe, game_dir=game)
    assert "look.texture_replaced" in codes(notes)
    body = texture(game, "TANK_BODY.0")
    assert body != before
    libs = libraries(game)

    # The older, unedited export put back: the repaint stays.
    notes = mshconv.write_model(old, units, entry="TANK.MSH", game_dir=game)
    assert texture(game, "TANK_BODY.0") == body
    assert libraries(game) == libs
    kept = [n.message for n in notes if n.code == "look.library_kept"]
    assert kept == [
        'texture "TANK_BODY.0" changed in Textures.lib since the file was exported, '
        "and the file leaves it as exported: the library's entry is kept (when the file's picture "
        "is the one wanted, as from another game folder, put it in with mshconv textures import)"
    ], notes

    # Its own edit of another texture goes in beside it.
    glass = texture(game, "GLASS_4444")
    notes = mshconv.write_model(repaint(old, "GLASS_4444", MAGENTA), units, entry="TANK.MSH", game_dir=game)
    assert texture(game, "TANK_BODY.0") == body
    assert texture(game, "GLASS_4444") != glass
    assert "look.texture_replaced" in codes(notes) and "look.library_kept" in codes(notes)

    # Its edit of the texture the library changed since: a conflict naming both sides.
    libs = libraries(game)
    with pytest.raises(mshconv.Error) as e:
        mshconv.write_model(repaint(old, "TANK_BODY.0", MAGENTA), units, entry="TANK.MSH", game_dir=game)
    assert e.value.code == "look.edit_conflict"
    message = str(e.value)
    assert "Textures.lib entry TANK_BODY.0 was edited on both sides since the file was exported" in message
    assert "the export had picture " in message and "Textures.lib has " in message and "the file has " in message
    assert libraries(game) == libs
