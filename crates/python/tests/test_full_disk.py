"""A full disk while the package writes a user's files: `mshconv.Error` with
the code `io.no_space`, as the CLI says it, and every file as before. The
failure is injected at each point of the write by the transactions' test hook
(`MSHCONV_TEST_TXN=fail:N`), in a child process: the hook is read once per
process."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import GAME, MODELS

# Each writes into the folder argv[1] (a copy of the game folder) and prints
# "ok" or the error's code.
PUT = """
import sys, mshconv
try:
    mshconv.Archive(sys.argv[1] + "/units.rlb").put("NEWA.MSH", open(sys.argv[2], "rb").read(), add=True)
    print("ok")
except mshconv.Error as e:
    print(e.code)
"""
WRITE_MODEL = """
import sys, mshconv
game = sys.argv[1]
archive = mshconv.Archive(game + "/units.rlb")
glb = mshconv.convert(archive.read("TANK.MSH"), "glb", game_dir=game, wear=archive.read("TANK.WEA")).files["model.glb"]
try:
    mshconv.write_model(glb, game + "/units.rlb", entry="NEWA.MSH", add=True, game_dir=game)
    print("ok")
except mshconv.Error as e:
    print(e.code)
"""


def files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("script", [PUT, WRITE_MODEL], ids=["Archive.put", "write_model"])
def test_a_full_disk_at_any_point_is_io_no_space(tmp_path, script):
    game = tmp_path / "game"
    shutil.copytree(GAME, game)
    before = files(game)
    codes = []
    for n in range(1, 64):
        env = dict(os.environ, MSHCONV_TEST_TXN=f"fail:{n}")
        out = subprocess.run(
            [sys.executable, "-c", script, str(game), str(MODELS[0])],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if out == "ok":
            break
        codes.append(out)
        assert files(game) == before, f"point {n}"
    # Journal, temp, keep, commit, replace: at least 4 points that can fail.
    assert len(codes) >= 4 and set(codes) == {"io.no_space"}, codes
    assert files(game) != before
