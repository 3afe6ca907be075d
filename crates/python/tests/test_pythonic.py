"""The package as Python code uses it: `Archive` as a mapping of entries and a
context manager, paths as `str` or `os.PathLike`, an archive entry converted
with its WEAR as the CLI converts `ARCHIVE:ENTRY` (the CLI binary is the
oracle), and the option names of the one option table. Typed throughout:
scripts/test-python.sh runs `mypy --strict` over this file against the stubs."""

from __future__ import annotations

import ast
import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Callable

import pytest

import mshconv
from conftest import GAME, MODELS, ROOT


@pytest.fixture
def units(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "units.rlb"
    shutil.copyfile(GAME / "units.rlb", path)
    return path


class Where(os.PathLike[str]):
    """A path-like object that is neither `str` nor `pathlib.Path`."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return str(self.path)


def cli() -> str:
    """The CLI binary: `MSHCONV_CLI` (scripts/test-python.sh builds it), else the debug build."""
    path = os.environ.get("MSHCONV_CLI") or str(ROOT / "target" / "debug" / "mshconv")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no CLI binary at {path}: run `cargo build -p mshconv` or set MSHCONV_CLI")
    return path


def cli_convert(spec: str, out: pathlib.Path, *args: str) -> list[str]:
    """Runs `mshconv convert SPEC OUT ARGS...`; the codes of its `note[...]` lines."""
    run = subprocess.run([cli(), "convert", spec, str(out), *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return re.findall(r"^note\[([\w.]+)\]", run.stderr, re.M)


def test_an_archive_is_a_mapping_of_its_entries(units: pathlib.Path) -> None:
    original = units.read_bytes()
    with mshconv.Archive(units) as archive:
        entries = archive.entries()
        assert len(archive) == len(entries) == 6
        assert list(archive) == archive.keys() == [e.name for e in entries]
        assert "TANK.MSH" in archive and "tank.msh" in archive
        assert "NOPE.MSH" not in archive and 3 not in archive
        for e in entries:
            assert archive[e.name] == original[e.offset : e.offset + e.size]
        assert archive.values() == [archive[e.name] for e in entries]
        assert archive.items() == list(zip(archive.keys(), archive.values()))
        assert dict(archive.items())["TANK.WEA"] == archive.read("tank.wea")
        with pytest.raises(KeyError):
            archive["NOPE.MSH"]
        assert archive.get("NOPE.MSH") is None
        assert archive.get("NOPE.MSH", b"") == b""
        assert archive.get("tank.msh") == archive["TANK.MSH"]
    # Leaving the block holds nothing back: the archive is read on every call.
    assert len(archive) == 6
    archive.put("NEW.MSH", MODELS[0].read_bytes(), add=True)
    assert "NEW.MSH" in archive and len(archive) == 7


def test_an_exception_leaves_the_block(units: pathlib.Path) -> None:
    with pytest.raises(mshconv.Error) as err:
        with mshconv.Archive(units) as archive:
            archive.remove("NOPE.MSH")
    assert err.value.code == "input.no_such_entry"


def test_an_unreadable_archive_raises_its_error(tmp_path: pathlib.Path) -> None:
    archive = mshconv.Archive(tmp_path / "missing.rlb")
    uses: list[Callable[[mshconv.Archive], object]] = [len, list, lambda a: "X" in a, lambda a: a["X"]]
    for use in uses:
        with pytest.raises(mshconv.Error) as err:
            use(archive)
        assert err.value.code == "io.not_found"


PathKind = Callable[[pathlib.Path], "str | os.PathLike[str]"]


@pytest.mark.parametrize("kind", [str, pathlib.Path, Where])
def test_paths_are_str_or_pathlike(units: pathlib.Path, kind: PathKind) -> None:
    path = kind(units)
    archive = mshconv.Archive(path)
    assert archive.path == units
    assert isinstance(archive.path, pathlib.Path)
    assert "TANK.MSH" in archive
    game = kind(GAME)
    out = mshconv.convert_entry(path, "TANK.MSH", "glb", game_dir=game)
    assert list(out.files) == ["TANK.glb"]


@pytest.mark.parametrize("to", ["glb", "obj", "usda"])
def test_an_entry_converts_with_its_wear_as_the_cli_converts_it(
    units: pathlib.Path, tmp_path: pathlib.Path, to: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    codes = cli_convert(f"{units}:TANK.MSH", out / f"TANK.{to}", "--game-dir", str(GAME))
    made = mshconv.convert_entry(units, "tank.msh", to, game_dir=GAME)
    assert made.files == {p.name: p.read_bytes() for p in out.iterdir()}
    assert [n.code for n in made.notes] == codes
    assert mshconv.Archive(units).convert("TANK.MSH", to, game_dir=GAME).files == made.files
    # The WEAR was found: the look differs from the model's without it.
    bare = mshconv.convert_entry(units, "TANK.MSH", to)
    assert bare.files != made.files
    assert "game.no_wear" not in codes


def test_options_and_no_game_folder_as_the_cli(units: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "TANK.glb"
    codes = cli_convert(f"{units}:TANK.MSH", out, "--axis", "z-up", "--lod", "1")
    made = mshconv.convert_entry(units, "TANK.MSH", "glb", axis="z-up", lod=1)
    assert made.files == {"TANK.glb": out.read_bytes()}
    assert [n.code for n in made.notes] == codes


def test_an_entry_without_its_wear_says_so_as_the_cli(units: pathlib.Path, tmp_path: pathlib.Path) -> None:
    mshconv.Archive(units).put("LONE.MSH", mshconv.Archive(units)["TANK.MSH"], add=True)
    out = tmp_path / "LONE.glb"
    codes = cli_convert(f"{units}:LONE.MSH", out, "--game-dir", str(GAME))
    made = mshconv.convert_entry(units, "LONE.MSH", "glb", game_dir=GAME)
    assert "game.no_wear" in codes
    assert [n.code for n in made.notes] == codes
    assert made.files == {"LONE.glb": out.read_bytes()}


def test_entry_refusals(units: pathlib.Path, tmp_path: pathlib.Path) -> None:
    cases: list[tuple[str | pathlib.Path, str, str, str]] = [
        (units, "NOPE.MSH", "glb", "input.no_such_entry"),
        (units, "TANK.MSH", "fbx", "option.invalid"),
        (tmp_path / "missing.rlb", "TANK.MSH", "glb", "io.not_found"),
        (MODELS[0], "TANK.MSH", "glb", "input.no_such_entry"),
        (GAME / "expected.json", "TANK.MSH", "glb", "nres.bad_magic"),
    ]
    for archive, entry, to, code in cases:
        with pytest.raises(mshconv.Error) as err:
            mshconv.convert_entry(archive, entry, to)
        assert err.value.code == code, (archive, entry, to)
    with pytest.raises(mshconv.Error) as err:
        mshconv.convert_entry(units, "TANK.MSH", "glb", game_dir=tmp_path / "none")
    assert err.value.code == "game_dir.not_found"
    with pytest.raises(mshconv.Error) as err:
        mshconv.convert_entry(units, "TANK.MSH", "glb", lods=1)  # type: ignore[call-arg]
    assert err.value.code == "option.invalid"
    assert "lods" in str(err.value) and ", ".join(mshconv.OPTION_NAMES) in str(err.value)


def table_option_names() -> list[str]:
    """The query names of crates/app/src/options.rs's OPTIONS rows, in order (read as text)."""
    source = (ROOT / "crates" / "app" / "src" / "options.rs").read_text()
    table = source[source.index("pub const OPTIONS") :]
    table = table[: table.index("\n];")]
    return re.findall(r'^\s*query: "([\w-]+)",', table, re.M)


def options_of(function: ast.FunctionDef) -> str:
    """The annotation of a stub's `**options`."""
    assert function.args.kwarg is not None and function.args.kwarg.arg == "options", function.name
    assert function.args.kwarg.annotation is not None
    return ast.unparse(function.args.kwarg.annotation)


def test_option_names_are_the_tables() -> None:
    table = table_option_names()
    assert len(table) == 8
    assert list(mshconv.OPTION_NAMES) == table
    assert isinstance(mshconv.OPTION_NAMES, tuple)
    stub = ast.parse((pathlib.Path(mshconv.__file__).parent / "_mshconv.pyi").read_text())
    classes = {c.name: c for c in stub.body if isinstance(c, ast.ClassDef)}
    # The stubs' keywords: the fields of `_Options`, which every conversion takes.
    fields = [
        f.target.id
        for f in classes["_Options"].body
        if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)
    ]
    assert fields == table
    functions = {f.name: f for f in stub.body if isinstance(f, ast.FunctionDef)}
    methods = {f.name: f for f in classes["Archive"].body if isinstance(f, ast.FunctionDef)}
    for function in (functions["convert"], functions["convert_entry"], methods["convert"]):
        assert options_of(function) == "Unpack[_Options]", function.name
    # Each is taken: a value is checked by the option itself (any text is an
    # animation's name), never refused as an unknown name.
    walker = (GAME.parent / "models" / "m095_walker.msh").read_bytes()
    refused = []
    for name in table:
        try:
            mshconv.convert(walker, "glb", **{name: "§"})  # type: ignore[arg-type]
        except mshconv.Error as err:
            assert "is not an option" not in str(err), name
            refused.append(name)
    assert len(refused) >= 5, refused


def test_readme_names_the_python_options() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Python") :]
    section = section[: section.index("\n## ", 1)]
    for name in mshconv.OPTION_NAMES:
        assert f"`{name}`" in section, name
    assert "convert_entry" in section



def test_a_replaced_wear_or_library_is_seen_by_the_next_conversion(tmp_path: pathlib.Path) -> None:
    """A Python session outlives the files it reads: what another write
    replaced is read anew, as a new CLI run reads it."""
    game = tmp_path / "game"
    shutil.copytree(GAME, game)
    units = mshconv.Archive(game / "units.rlb")
    first = units.convert("TANK.MSH", "glb", game_dir=game)
    units.remove("TANK.WEA")
    no_wear = units.convert("TANK.MSH", "glb", game_dir=game)
    assert "game.no_wear" in [n.code for n in no_wear.notes]
    assert no_wear.files != first.files
    textures = mshconv.Archive(game / "Textures.lib")
    before = mshconv.convert_entry(GAME / "units.rlb", "TANK.MSH", "glb", game_dir=game)
    for name in textures.keys():
        textures.remove(name)
    after = mshconv.convert_entry(GAME / "units.rlb", "TANK.MSH", "glb", game_dir=game)
    assert after.files != before.files
    out = tmp_path / "TANK.glb"
    codes = cli_convert(f"{GAME / 'units.rlb'}:TANK.MSH", out, "--game-dir", str(game))
    assert [n.code for n in after.notes] == codes
    assert after.files == {"TANK.glb": out.read_bytes()}
