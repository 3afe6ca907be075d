"""The CLI's warnings through Python: what a replaced entry loses
(archive.entry_loses), a look the game folder does not get (look.not_written),
an edit other models show (look.shared_edit); and an interrupted write
finished before a read."""

import base64
import json
import logging
import shutil
import struct
import subprocess
import sys

import pytest

import mshconv
from conftest import GAME, SMALL, png

WALKER = SMALL / "models" / "m095_walker.msh"


def codes(notes):
    return [n.code for n in notes]


def one(notes, code):
    found = [n.message for n in notes if n.code == code]
    assert len(found) == 1, notes
    return found[0]


def repainted(game, entry, texture):
    """The entry's glTF (its look from the game folder) with the image of
    `texture` painted magenta, every file inside it (data URIs)."""
    archive = mshconv.Archive(game / "units.rlb")
    wear = archive.read(entry.rsplit(".", 1)[0] + ".WEA")
    out = mshconv.convert(archive.read(entry), "gltf", game_dir=game, wear=wear)
    files = out.files
    gltf = json.loads(files["model.gltf"])
    painted = False
    for image in gltf["images"]:
        data = files[image["uri"]]
        if image["name"] == texture:
            width, height = struct.unpack(">II", data[16:24])
            data, painted = png(width, height, (255, 0, 255, 255)), True
        image["uri"] = "data:image/png;base64," + base64.b64encode(data).decode()
    assert painted, [i["name"] for i in gltf["images"]]
    return json.dumps(gltf).encode()


def test_a_repaint_without_the_game_folder_says_its_look_is_not_written(game):
    units = game / "units.rlb"
    edited = repainted(game, "DEPOT.MSH", "DEFAULT.0")
    textures = (game / "Textures.lib").read_bytes()
    notes = mshconv.write_model(edited, units, entry="DEPOT.MSH")
    message = one(notes, "look.not_written")
    assert "(replace Textures.lib:DEFAULT.0)" in message, message
    assert "(no game_dir)" in message, message
    # The library is untouched, and the call the note gives writes the look.
    assert (game / "Textures.lib").read_bytes() == textures
    call = message.split("this writes it: ", 1)[1]
    assert call.startswith("mshconv.write_model(data, "), call
    assert f"game_dir={json.dumps(str(game))}" in call, call
    again = eval(call, {"mshconv": mshconv, "data": edited})  # noqa: S307: the note's own call
    assert "look.not_written" not in codes(again), again
    assert (game / "Textures.lib").read_bytes() != textures
    assert (game / "Textures.lib.bak").read_bytes() == textures
    # Now the folder has that look: nothing more to say.
    assert "look.not_written" not in codes(mshconv.write_model(edited, units, entry="DEPOT.MSH"))
    # A dry run says it too.
    plan = mshconv.write_model(repainted(game, "TANK.MSH", "TANK_BODY.0"), units, entry="TANK.MSH", dry_run=True)
    assert "look.not_written" in codes(plan.notes), plan.notes


def test_a_shared_texture_edit_names_the_other_models(game):
    edited = repainted(game, "DEPOT.MSH", "DEFAULT.0")
    notes = mshconv.write_model(edited, game / "units.rlb", entry="DEPOT.MSH", game_dir=game)
    message = one(notes, "look.shared_edit")
    # The fixture folder's other models whose WEAR names a material showing DEFAULT.0.
    assert message.startswith("Textures.lib: DEFAULT.0 is edited, and 3 other models show it too: "), message
    for other in ("models/Dome.msh", "models/pipe.msh", "units.rlb:ROBOT.MSH"):
        assert other in message, message
    assert "DEPOT" not in message.split(": ", 2)[2], "the model itself is not another"


def walker_archive(tmp_path):
    """A copy of units.rlb with the animated walker added."""
    path = tmp_path / "units.rlb"
    shutil.copyfile(GAME / "units.rlb", path)
    assert mshconv.Archive(path).put("WALKER.MSH", WALKER.read_bytes(), add=True).placed == "added"
    return path


def walker_obj():
    return mshconv.convert(WALKER.read_bytes(), "obj", name="walker").files["walker.obj"]


def assert_animated(msh):
    """The model has nodes and an animation, read from its glTF (apart from the note)."""
    glb = mshconv.convert(msh, "glb").files["model.glb"]
    (length,) = struct.unpack("<I", glb[12:16])
    gltf = json.loads(glb[20 : 20 + length])
    assert len(gltf["nodes"]) > 1 and gltf.get("animations"), "a hierarchy with animation"


def test_an_obj_over_an_animated_model_says_what_the_entry_loses(tmp_path):
    assert_animated(WALKER.read_bytes())
    obj = walker_obj()
    for put in ("Archive.put", "write_model"):
        path = walker_archive(tmp_path)
        if put == "Archive.put":
            outcome = mshconv.Archive(path).put("walker.msh", obj)
            assert outcome.placed == "replaced"
            notes = outcome.notes
        else:
            notes = mshconv.write_model(obj, path, entry="walker.msh")
        message = one(notes, "archive.entry_loses")
        # As the CLI says it: the entry as the archive spells it, and every frame.
        assert message.startswith(f"{path}:WALKER.MSH loses "), (put, message)
        assert " frames" in message and "all " in message, (put, message)
    # The same model put back loses nothing.
    path = walker_archive(tmp_path)
    assert mshconv.Archive(path).put("WALKER.MSH", WALKER.read_bytes()).notes == []


WRITER = """
import sys, mshconv
mshconv.Archive(sys.argv[1]).put("NEW.MSH", open(sys.argv[2], "rb").read(), add=True)
"""


def kill_at(point, archive):
    """Runs a Python write into `archive` stopped at the transaction's
    `point` (the test hook) and kills it there; what the point follows."""
    env = {"MSHCONV_TEST_TXN": f"stop:{point}", "PATH": "/usr/bin:/bin"}
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(archive), str(WALKER)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    prefix = f"mshconv test hook: stopped at point {point} ("
    for line in child.stderr:
        if line.startswith(prefix):
            child.kill()
            child.wait()
            return line[len(prefix) :].rstrip().rstrip(")")
    child.wait()
    pytest.fail(f"the writer never stopped at point {point} (exit {child.returncode})")


@pytest.mark.parametrize(
    ("point", "what", "code", "added"),
    [(2, "temp", "txn.rolled_back", False), (4, "commit", "txn.rolled_forward", True)],
)
def test_an_interrupted_write_is_finished_before_a_read(tmp_path, caplog, point, what, code, added):
    archive = tmp_path / "units.rlb"
    shutil.copyfile(GAME / "units.rlb", archive)
    before = archive.read_bytes()
    assert kill_at(point, archive).startswith(what)
    # Killed there, the folder holds the write's journal and the archive is still the old one.
    assert (tmp_path / ".mshconv.journal").exists()
    assert archive.read_bytes() == before
    with caplog.at_level(logging.WARNING, logger="mshconv"):
        names = [e.name for e in mshconv.Archive(archive).entries()]
    assert ("NEW.MSH" in names) == added, names
    assert [r.getMessage().split("]")[0] for r in caplog.records] == [f"note[{code}"], caplog.text
    if not added:
        assert archive.read_bytes() == before
    # Nothing of the write is left beside the archive.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["units.rlb"]
