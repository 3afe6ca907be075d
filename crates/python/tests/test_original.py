"""Issue 41: a glTF's original through the Python package. The export records
its fingerprint (embed_original=True embeds the file); the way back takes the
model write_model writes over, or original=, and says what to give without."""

import hashlib
import pathlib
import json
import struct

import mshconv
from conftest import SMALL

ROBOT = SMALL / "models" / "m242_robot.msh"


def scene_extras(glb: bytes) -> dict[str, object]:
    (length,) = struct.unpack("<I", glb[12:16])
    extras: dict[str, object] = json.loads(glb[20 : 20 + length])["scenes"][0]["extras"]["msh"]
    return extras


def rewritten(glb: bytes) -> bytes:
    """As a tool that rebuilt the buffers writes it back: the recorded buffer
    length no longer holds (one digit changed in place)."""
    key = b'"buffer_length":'
    at = glb.index(key) + len(key)
    end = at
    while glb[end : end + 1].isdigit():
        end += 1
    digit = (glb[end - 1] - ord("0") + 1) % 10
    return glb[: end - 1] + bytes([ord("0") + digit]) + glb[end:]


def test_the_export_records_the_fingerprint_and_embeds_only_when_asked() -> None:
    model = ROBOT.read_bytes()
    plain = mshconv.convert(model, "glb").files["model.glb"]
    assert scene_extras(plain)["original_fingerprint"] == hashlib.sha256(model).hexdigest()[:32]
    assert "original" not in scene_extras(plain)
    embedded = mshconv.convert(model, "glb", embed_original=True).files["model.glb"]
    assert isinstance(scene_extras(embedded)["original"], str)
    assert mshconv.convert(model, "glb", embed_original="false").files["model.glb"] == plain


def test_the_way_back_takes_the_model_written_over_or_the_one_given(tmp_path: pathlib.Path) -> None:
    model = ROBOT.read_bytes()
    glb = rewritten(mshconv.convert(model, "glb").files["model.glb"])
    alone = mshconv.convert(glb, "msh")
    assert "import.original_missing" in [n.code for n in alone.notes]
    given = mshconv.convert(glb, "msh", original=model)
    assert given.files["model.msh"] == model
    assert "import.original_kept" in [n.code for n in given.notes]
    other = mshconv.convert(glb, "msh", original=(SMALL / "models" / "m143_robot.msh").read_bytes())
    assert "import.original_changed" in [n.code for n in other.notes]
    path = tmp_path / "robot.msh"
    path.write_bytes(model)
    notes = mshconv.write_model(glb, path)
    assert "import.original_kept" in [n.code for n in notes]
    assert path.read_bytes() == model
    elsewhere = tmp_path / "copy.msh"
    mshconv.write_model(glb, elsewhere, original=model)
    assert elsewhere.read_bytes() == model
