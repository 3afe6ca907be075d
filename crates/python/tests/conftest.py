"""Shared fixtures of the Python package's tests: the committed corpus."""

import pathlib
import shutil
import struct
import zlib

import pytest

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


def png(width: int, height: int, rgba: "bytes | tuple[int, ...]") -> bytes:
    """A PNG of one colour (8-bit RGBA, unfiltered rows), written by the
    tests' own encoder, independent of mshconv's."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgba) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
