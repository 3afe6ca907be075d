"""Archives whose entries share or overlap their payloads (valid NRes): every
edit would give each entry its own copy (1,000 entries on one 4 MB payload
became 4 GB), so Archive.put, Archive.remove and write_model into an entry
(the Blender add-on's export into an archive is Archive.put) refuse them with
archive.entries_overlap and leave the file as it was."""

import struct

import pytest

import mshconv


def archive_by_bytes(payload: bytes, entries: list[tuple[str, int, int]]) -> bytes:
    """An NRes archive written byte by byte: `payload` after the header, then
    one MSH entry per (name, start, end), a byte range of the payload."""
    padded = payload + b"\0" * (-len(payload) % 8)
    total = 16 + len(padded) + 64 * len(entries)
    out = b"NRes" + struct.pack("<IiI", 0x100, len(entries), total) + padded
    order = sorted(range(len(entries)), key=lambda i: entries[i][0].upper())
    for i, (name, start, end) in enumerate(entries):
        out += struct.pack("<4sIIII", b"MSH\0", 0, 0, end - start, 0)
        out += name.encode().ljust(36, b"\0")
        out += struct.pack("<II", 16 + start, order[i])
    return out


def layouts(model: bytes) -> dict[str, bytes]:
    n = len(model)
    return {
        "disjoint": archive_by_bytes(model * 2, [("A.MSH", 0, n), ("B.MSH", n, 2 * n)]),
        "shared": archive_by_bytes(model, [(name, 0, n) for name in ("A.MSH", "B.MSH", "C.MSH")]),
        "overlapping": archive_by_bytes(model * 2, [("A.MSH", 0, n), ("B.MSH", n - 8, 2 * n)]),
    }


EDITS = {
    "put (replace)": lambda path, model: mshconv.Archive(path).put("A.MSH", model),
    "put (add)": lambda path, model: mshconv.Archive(path).put("NEW.MSH", model, add=True),
    "remove": lambda path, model: mshconv.Archive(path).remove("B.MSH"),
    "write_model (replace)": lambda path, model: mshconv.write_model(model, path, entry="A.MSH"),
    "write_model (add)": lambda path, model: mshconv.write_model(model, path, entry="NEW.MSH", add=True),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("layout", ["shared", "overlapping"])
def test_edits_refuse_entries_that_share_bytes(tmp_path, walker, edit, layout):
    path = tmp_path / "units.rlb"
    path.write_bytes(layouts(walker)[layout])
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    with pytest.raises(mshconv.Error) as err:
        EDITS[edit](path, walker)
    assert err.value.code == "archive.entries_overlap"
    assert 'entry 0 ("A.MSH"' in str(err.value) and 'entry 1 ("B.MSH"' in str(err.value)
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("edit", EDITS)
def test_the_same_edits_of_separate_payloads_succeed(tmp_path, walker, edit):
    path = tmp_path / "units.rlb"
    path.write_bytes(layouts(walker)["disjoint"])
    EDITS[edit](path, walker)
    assert mshconv.Archive(path).entries()
