"""mshconv.validate on good, damaged and hostile bytes; no panic crosses into Python."""

import json
import random

import pytest

import mshconv
from conftest import DAMAGED, EDGE, MODELS, SMALL


@pytest.mark.parametrize("path", MODELS + EDGE, ids=lambda p: p.name)
def test_good_models_are_valid(path):
    report = mshconv.validate(path.read_bytes())
    assert report.valid, report.findings
    assert report.kind in ("standard", "legacy_nodes", "terrain")
    assert all(f.severity != "error" for f in report.findings)


def test_damaged_models_name_code_path_and_offset():
    cases = json.loads((SMALL / "damaged" / "expected.json").read_text())["cases"]
    assert len(cases) == len(DAMAGED)
    for case in cases:
        report = mshconv.validate((SMALL / "damaged" / case["file"]).read_bytes())
        assert not report.valid, case["file"]
        assert case["code"] in [f.code for f in report.findings], (case, report.findings)
    bad = mshconv.validate((SMALL / "damaged" / "anim4__batch0_index_count_4.msh").read_bytes())
    first = bad.findings[0]
    assert (first.code, first.path, first.severity) == (
        "batch.index_count",
        "Res13[0].index_count",
        "error",
    )
    assert isinstance(first.offset, int) and first.offset > 0
    assert first.message


def test_garbage_is_a_finding_not_an_error():
    report = mshconv.validate(b"not a container")
    assert not report.valid and report.kind is None
    assert report.findings[0].code == "nres.truncated"


def test_hostile_bytes_never_panic(walker):
    rng = random.Random(33)
    glb = mshconv.convert(walker, "glb").files["model.glb"]
    inputs = [b"", b"NRes", b"glTF", b"{", b"v 1 2 3\nf 1 1 1\n"]
    for source in (walker, glb):
        for _ in range(60):
            data = bytearray(source)
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            inputs.append(bytes(data[: rng.randint(0, len(data))]))
            inputs.append(bytes(data))
    outcomes = set()
    for data in inputs:
        mshconv.validate(data)
        for to in ("glb", "msh", "obj"):
            try:
                mshconv.convert(data, to)
                outcomes.add("ok")
            except mshconv.Error as e:
                assert e.code and e.code != "internal", (e.code, str(e))
                outcomes.add("error")
    assert outcomes == {"ok", "error"}


def test_game_libraries_validate_as_libraries():
    """Issue 39: Material.lib and Textures.lib are checked by their entries, not as models."""
    from conftest import GAME

    for name, kind in (("Material.lib", "materials"), ("Textures.lib", "textures")):
        report = mshconv.validate((GAME / name).read_bytes())
        assert report.valid, report.findings
        assert report.kind == kind
        assert report.findings == []
