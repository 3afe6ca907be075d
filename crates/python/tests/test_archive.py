"""mshconv.Archive on a temporary copy of the fixture game's units.rlb."""

import shutil

import pytest

import mshconv
from conftest import GAME, MODELS, SMALL


@pytest.fixture
def units(tmp_path):
    path = tmp_path / "units.rlb"
    shutil.copyfile(GAME / "units.rlb", path)
    return path


def test_entries_and_byte_identical_reads(units):
    archive = mshconv.Archive(units)
    entries = archive.entries()
    assert [e.name for e in entries][:2] == ["TANK.MSH", "TANK.WEA"]
    assert {e.type for e in entries} >= {"MSH", "WEAR"}
    original = units.read_bytes()
    for e in entries:
        data = archive.read(e.name)
        assert len(data) == e.size
        assert data == original[e.offset : e.offset + e.size]
    # Found as the game finds names: ASCII case-insensitively.
    assert archive.read("tank.msh") == archive.read("TANK.MSH")
    with pytest.raises(mshconv.Error) as err:
        archive.read("NOPE.MSH")
    assert err.value.code == "input.no_such_entry"


def test_put_the_same_model_leaves_the_archive_byte_for_byte(units):
    archive = mshconv.Archive(units)
    before = units.read_bytes()
    for e in archive.entries():
        if e.type == "MSH":
            assert archive.put(e.name, archive.read(e.name)).placed == "replaced"
    assert units.read_bytes() == before


def test_put_a_glb_converts_it(units):
    archive = mshconv.Archive(units)
    tank = archive.read("TANK.MSH")
    before = units.read_bytes()
    glb = mshconv.convert(tank, "glb").files["model.glb"]
    assert archive.put("TANK.MSH", glb).placed == "replaced"
    assert units.read_bytes() == before, "an unedited export comes back byte for byte"


def test_add_replace_remove(units):
    archive = mshconv.Archive(units)
    count = len(archive.entries())
    new = MODELS[0].read_bytes()
    with pytest.raises(mshconv.Error) as err:
        archive.put("TANKK.MSH", new)
    assert err.value.code == "archive.no_such_entry"
    assert "TANK.MSH" in str(err.value) and "add=True" in str(err.value)
    assert len(archive.entries()) == count
    assert archive.put("NEW.MSH", new, add=True).placed == "added"
    assert archive.read("NEW.MSH") == new
    assert archive.entries()[-1].name == "NEW.MSH"
    other = MODELS[1].read_bytes()
    assert archive.put("new.msh", other).placed == "replaced"
    assert archive.read("NEW.MSH") == other
    archive.remove("NEW.MSH")
    assert units.read_bytes() == (GAME / "units.rlb").read_bytes()
    with pytest.raises(mshconv.Error) as err:
        archive.remove("NEW.MSH")
    assert err.value.code == "input.no_such_entry"


@pytest.mark.parametrize(
    "name,code",
    [
        ("sub/X.MSH", "archive.bad_name"),
        ("..X.MSH", "archive.bad_name"),
        ("X" * 40 + ".MSH", "archive.bad_name"),
        ("TANK.TXT", "request.entry_not_model"),
    ],
)
def test_names_are_refused_as_the_cli_refuses_them(units, name, code):
    with pytest.raises(mshconv.Error) as err:
        mshconv.Archive(units).put(name, MODELS[0].read_bytes(), add=True)
    assert err.value.code == code


def test_damaged_models_and_files_are_refused(units, tmp_path):
    archive = mshconv.Archive(units)
    before = units.read_bytes()
    damaged = (SMALL / "damaged" / "anim4__batch0_index_count_4.msh").read_bytes()
    with pytest.raises(mshconv.Error) as err:
        archive.put("TANK.MSH", damaged)
    assert err.value.code == "batch.index_count"
    with pytest.raises(mshconv.Error) as err:
        archive.put("TANK.MSH", b"\x00\x01\x02 neither model nor glTF")
    assert err.value.code == "input.unknown_format"
    assert units.read_bytes() == before
    with pytest.raises(mshconv.Error) as err:
        mshconv.Archive(tmp_path / "missing.rlb").entries()
    assert err.value.code == "io.not_found"
    model = tmp_path / "model.msh"
    shutil.copyfile(MODELS[0], model)
    with pytest.raises(mshconv.Error) as err:
        mshconv.Archive(model).put("X.MSH", MODELS[0].read_bytes(), add=True)
    assert err.value.code == "archive.is_model"
    assert not list(tmp_path.glob(".*.tmp")), "no temporary file is left"


def test_a_planted_journal_never_acts_in_another_folder(units):
    """Issue 38: a journal planted beside the archive that names another
    folder is never acted on there; the archive still reads; a write refuses
    it while files of its transaction sit beside it, else removes it alone."""
    import json

    game = units.parent.resolve()
    victim = game / "victim"
    victim.mkdir()
    keep = victim / "keep.txt"
    keep.write_bytes(b"keep me")
    tx = "0123456789abcdef"

    def step(target):
        return {"target": str(target), "temp": str(target.with_name(f".{target.name}.{tx}.tmp")), "old": None}

    def plant(state, targets):
        journal = {
            "format": "mshconv-journal", "version": 1, "id": tx, "state": state,
            "folders": [str(game), str(victim)], "steps": [step(t) for t in targets],
        }
        (game / ".mshconv.journal").write_text(json.dumps(journal))

    before = units.read_bytes()
    planted = game / f".units.rlb.{tx}.tmp"
    planted.write_bytes(b"planted")
    plant("committed", [game / "units.rlb", keep])
    archive = mshconv.Archive(units)
    tank = archive.read("TANK.MSH")
    with pytest.raises(mshconv.Error) as err:
        archive.put("TANK.MSH", tank)
    assert err.value.code == "txn.journal_unknown"
    assert units.read_bytes() == before and keep.read_bytes() == b"keep me"
    planted.unlink()
    plant("rolling_back", [keep])
    assert archive.put("TANK.MSH", tank).placed == "replaced"
    assert keep.read_bytes() == b"keep me"
    assert not (game / ".mshconv.journal").exists()
