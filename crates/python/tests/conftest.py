"""Shared fixtures of the Python package's tests: the committed corpus."""

import pathlib
import shutil

import pytest

from gltf_edits import png

__all__ = ["png"]

ROOT = pathlib.Path(__file__).resolve().parents[3]
SMALL = ROOT / "fixtures" / "small"
MODELS = sorted((SMALL / "models").glob("*.msh"))
EDGE = sorted((SMALL / "edge").glob("*.msh"))
DAMAGED = sorted((SMALL / "damaged").glob("*.msh"))
GAME = SMALL / "game"


@pytest.fixture
def walker() -> bytes:
    return (SMALL / "models" / "m095_walker.msh").read_bytes()


@pytest.fixture
def game(tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the fixture game folder, to write into."""
    folder = tmp_path / "game"
    shutil.copytree(GAME, folder)
    return folder
