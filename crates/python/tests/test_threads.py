"""Threads convert in parallel (the GIL is released during a conversion) with the same results."""

from concurrent.futures import ThreadPoolExecutor

import mshconv
from conftest import MODELS


def round_trip(data: bytes) -> tuple[bytes, bytes]:
    glb = mshconv.convert(data, "glb").files["model.glb"]
    return glb, mshconv.convert(glb, "msh").files["model.msh"]


def test_parallel_conversions_match_sequential_ones():
    inputs = [p.read_bytes() for p in MODELS] * 3
    sequential = [round_trip(d) for d in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(round_trip, inputs))
    assert parallel == sequential
    assert all(back == d for (_, back), d in zip(parallel, inputs))
