"""mshconv.convert: every direction on the fixture models, the options and their refusals."""

import json
import struct

import pytest

import mshconv
from conftest import EDGE, GAME, MODELS, SMALL


def glb_json(glb: bytes) -> dict:
    """The JSON chunk of a GLB."""
    length = struct.unpack_from("<I", glb, 12)[0]
    return json.loads(glb[20 : 20 + length])


@pytest.mark.parametrize("path", MODELS + EDGE, ids=lambda p: p.name)
def test_glb_and_back_is_byte_identical(path):
    data = path.read_bytes()
    out = mshconv.convert(data, "glb", name=path.stem)
    assert list(out.files) == [f"{path.stem}.glb"]
    glb = out.files[f"{path.stem}.glb"]
    assert glb[:4] == b"glTF"
    back = mshconv.convert(glb, "msh", name=path.stem)
    assert list(back.files)[0] == f"{path.stem}.msh"
    assert back.files[f"{path.stem}.msh"] == data


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_every_other_direction(path):
    data = path.read_bytes()
    gltf = mshconv.convert(data, "gltf", name="m")
    assert list(gltf.files)[0] == "m.gltf"
    assert json.loads(gltf.files["m.gltf"])["asset"]["version"] == "2.0"
    assert mshconv.convert(gltf.files["m.gltf"], "msh", name="m").files["m.msh"] == data

    if path.name == "m211_mtcheck.msh":
        # Legacy node table: no hierarchy to pose for OBJ (the CLI's refusal).
        with pytest.raises(mshconv.Error) as e:
            mshconv.convert(data, "obj")
        assert "legacy" in str(e.value), e.value.code
        return
    obj = mshconv.convert(data, "obj", name="m")
    assert list(obj.files)[:2] == ["m.obj", "m.mtl"]
    assert b"mtllib m.mtl" in obj.files["m.obj"]
    # OBJ keeps geometry only: the model comes back valid, not byte for byte.
    msh = mshconv.convert(obj.files["m.obj"], "msh", source="obj").files["model.msh"]
    assert mshconv.validate(msh).valid

    usda = mshconv.convert(data, "usda", name="m").files["m.usda"]
    assert usda.startswith(b"#usda 1.0")


def test_the_input_format_is_told_or_given(walker):
    glb = mshconv.convert(walker, "glb").files["model.glb"]
    assert mshconv.convert(glb, "msh", source="glb").files["model.msh"] == walker
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(walker, "msh", source="glb")
    assert e.value.code.startswith("gltf."), e.value.code
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(walker, "glb", source="glb")
    assert e.value.code == "convert.unsupported_direction"
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(walker, "fbx")
    assert e.value.code == "option.invalid"
    assert "fbx" in str(e.value)
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(walker, "msh")
    assert e.value.code == "convert.unsupported_direction"
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(b"\x00\x01 not a model", "glb")
    assert e.value.code == "input.unknown_format"


def test_an_archive_is_no_model():
    units = (GAME / "units.rlb").read_bytes()
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(units, "glb")
    assert e.value.code == "request.entry_required"
    assert "Archive" in str(e.value)


def test_options_change_the_export(walker):
    default = glb_json(mshconv.convert(walker, "glb").files["model.glb"])
    z_up = glb_json(mshconv.convert(walker, "glb", axis="z-up").files["model.glb"])
    assert default != z_up
    # Numbers and their text are the same option value.
    assert mshconv.convert(walker, "glb", lod=1, fps=30).files == mshconv.convert(
        walker, "glb", lod="1", fps="30"
    ).files
    assert glb_json(mshconv.convert(walker, "glb", name="tank").files["tank.glb"])["scenes"][0][
        "name"
    ] == "tank"


def test_clips_make_one_animation_each():
    animated = next(p for p in MODELS if glb_json(mshconv.convert(p.read_bytes(), "glb").files["model.glb"]).get("animations"))
    data = animated.read_bytes()
    out = mshconv.convert(data, "glb", clips="a=0..2:loop,b=2..4:once")
    names = [a["name"] for a in glb_json(out.files["model.glb"])["animations"]]
    assert names == ["a", "b"]
    spec_json = '{"clips": [{"name": "a", "first": 0, "last": 2}]}'
    out = mshconv.convert(data, "glb", clips=spec_json)
    assert [a["name"] for a in glb_json(out.files["model.glb"])["animations"]] == ["a"]
    # Back with the clips: the clip list beside the model.
    back = mshconv.convert(out.files["model.glb"], "msh", animation="all")
    assert list(back.files)[1:] == ["model.clips.json"]


@pytest.mark.parametrize(
    "options,code",
    [
        ({"lod": 3}, "option.invalid"),
        ({"lod": -1}, "option.invalid"),
        ({"group": 5}, "option.invalid"),
        ({"fps": 0}, "option.invalid"),
        ({"fps": float("nan")}, "option.invalid"),
        ({"fps": "fast"}, "option.invalid"),
        ({"axis": "x-up"}, "option.invalid"),
        ({"rotation": "sideways"}, "option.invalid"),
        ({"clips": "idle"}, "clips.invalid"),
        ({"clips": "a=2..1"}, "clips.invalid"),
        ({"lod": True}, "option.invalid"),
        ({"lod": [1]}, "option.invalid"),
        ({"colour": "red"}, "option.invalid"),
    ],
)
def test_option_refusals_carry_the_cli_codes(walker, options, code):
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(walker, "glb", **options)
    assert e.value.code == code
    assert isinstance(e.value, ValueError)


def test_the_game_folder_gives_textures():
    archive = mshconv.Archive(GAME / "units.rlb")
    tank, wear = archive.read("TANK.MSH"), archive.read("TANK.WEA")
    plain = mshconv.convert(tank, "glb", name="TANK")
    looked = mshconv.convert(tank, "glb", name="TANK", game_dir=str(GAME), wear=wear)
    assert plain.files != looked.files
    doc = glb_json(looked.files["TANK.glb"])
    assert doc.get("images"), "the textures are embedded"
    obj = mshconv.convert(tank, "obj", name="TANK", game_dir=GAME, wear=wear)
    assert any(n.endswith(".png") for n in list(obj.files)[2:])
    # Without its WEAR the model's materials cannot be resolved: a note says so.
    bare = mshconv.convert(tank, "glb", name="TANK", game_dir=GAME)
    assert any(n.code.startswith("game.") for n in bare.notes)
    assert all(isinstance(n, mshconv.Note) and n.message for n in bare.notes)
    with pytest.raises(mshconv.Error) as e:
        mshconv.convert(tank, "glb", game_dir=SMALL / "no such folder")
    assert e.value.code == "game_dir.not_found"


def test_the_stubs_name_what_the_module_has():
    import pathlib
    import re

    stub = (pathlib.Path(mshconv.__file__).parent / "_mshconv.pyi").read_text()
    declared = {n for n in re.findall(r"^(?:class|def) (\w+)", stub, re.M) if not n.startswith("_")}
    assert declared == set(mshconv.__all__) - {"__version__", "OPTION_NAMES"}
    assert "\nOPTION_NAMES: tuple[str, ...]\n" in stub
    assert (pathlib.Path(mshconv.__file__).parent / "py.typed").exists()
    assert isinstance(mshconv.Archive("x.rlb").path, pathlib.Path)
