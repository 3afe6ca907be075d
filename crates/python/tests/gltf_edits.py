"""Edits a user makes to an exported model, written by the tests' own code,
independent of mshconv's: a one-colour PNG and a GLB with one image
repainted. The Python tests (conftest.py, test_look_merge.py) and the
conformance suite (crates/python/tests_blender/conformance) share them."""

import json
import struct
import zlib


def png(width: int, height: int, rgba: "bytes | tuple[int, ...]") -> bytes:
    """A PNG of one colour (8-bit RGBA, unfiltered rows)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgba) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def glb_parts(glb: bytes) -> "tuple[dict[str, object], bytes]":
    """A GLB's JSON (parsed) and binary chunk."""
    json_len = struct.unpack_from("<I", glb, 12)[0]
    doc: dict[str, object] = json.loads(glb[20 : 20 + json_len])
    return doc, glb[20 + json_len + 8 :]


def glb_of(doc: "dict[str, object]", binary: bytes) -> bytes:
    """A GLB of a JSON document and a binary chunk, written as another tool
    writes it (its own JSON spacing)."""
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\x00" * (-len(binary) % 4)
    body = struct.pack("<I", len(text)) + b"JSON" + text + struct.pack("<I", len(binary)) + b"BIN\x00" + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def resave(glb: bytes) -> bytes:
    """The GLB opened and saved unedited by another tool: other bytes, the same model."""
    return glb_of(*glb_parts(glb))


def repaint(glb: bytes, image_name: str, rgba: "tuple[int, ...]") -> bytes:
    """The GLB with its image `image_name` painted one colour (the new PNG
    appended to the binary chunk, the image pointed at it)."""
    json_len = struct.unpack_from("<I", glb, 12)[0]
    doc = json.loads(glb[20 : 20 + json_len])
    bin_start = 20 + json_len + 8
    binary = bytearray(glb[bin_start:])
    image = next(i for i in doc["images"] if i["name"] == image_name)
    view = doc["bufferViews"][image["bufferView"]]
    old = binary[view.get("byteOffset", 0) : view.get("byteOffset", 0) + view["byteLength"]]
    width, height = struct.unpack_from(">II", old, 16)
    new = png(width, height, rgba)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(new)})
    image["bufferView"] = len(doc["bufferViews"]) - 1
    binary += new + b"\x00" * (-len(new) % 4)
    doc["buffers"][0]["byteLength"] = len(binary)
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<I", len(text)) + b"JSON" + text + struct.pack("<I", len(binary)) + b"BIN\x00" + bytes(binary)
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
