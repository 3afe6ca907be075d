"""A row run through one front end: its folder made, the user's export and
edit, the steps around the put, the files before and after, and the checks.
The same code runs in the test process (the CLI, the service, the Python
package) and in the Blender process of the add-on (addon_worker.py)."""

import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[4]
SMALL = ROOT / "fixtures" / "small"
GAME = SMALL / "game"
WALKER = SMALL / "models" / "m095_walker.msh"
GREEN = (0x00, 0xFF, 0x00, 0xFF)
HANG = 120
"""Seconds a helper process may stay silent before it counts as stuck (a hang guard)."""

sys.path.insert(0, str(ROOT / "crates" / "python" / "tests"))
import gltf_edits  # noqa: E402  (the Python tests' edits, shared)


def cli() -> str:
    """The CLI binary (scripts/test-python.sh builds it)."""
    return os.environ["MSHCONV_CLI"]


def make_folder(work: pathlib.Path, row: dict) -> pathlib.Path:
    """`work`/root holding a copy of the fixture game folder, after the row's `before` steps."""
    root = work / "root"
    shutil.copytree(GAME, root / "game")
    for step in row.get("before", []):
        BEFORE[step[0]](root, *step[1:])
    return root


# Steps before the export.


def walker_added(root):
    import mshconv

    mshconv.Archive(root / "game" / "units.rlb").put("WALKER.MSH", WALKER.read_bytes(), add=True)


def symlinked(root, link, target):
    (root / target).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(root / link, root / target)
    os.symlink(root / target, root / link)


def empty_folder(root, name):
    (root / name).mkdir()


def nothing(root):
    """A step another runner does (the add-on's scene)."""


BEFORE = dict(walker_added=walker_added, symlinked=symlinked, empty_folder=empty_folder, scene_with_others=nothing)


def export(row: dict, root: pathlib.Path) -> tuple[bytes, str]:
    """The user's export of the row's source (with the game folder's look)
    and edit, as the CLI, the service and Python take it: its bytes and suffix."""
    import mshconv

    archive = root / "game" / "units.rlb"
    fmt = row.get("format", "glb")
    game_dir = root / "game" if fmt == "glb" else None
    out = mshconv.convert_entry(archive, row["source"], fmt, game_dir=game_dir)
    data = next(v for k, v in out.files.items() if k.endswith("." + fmt))
    edit = row.get("edit")
    if edit and edit[0] == "repaint":
        data = gltf_edits.repaint(data, edit[1], tuple(edit[2]))
    elif fmt == "glb":
        # Opened and saved by the user's tool, as Blender does.
        data = gltf_edits.resave(data)
    return data, fmt


# Steps after the export, before the put: each returns what runs beside the put, or None.


class Beside:
    """A writer that holds the archive's folder while the front end's put
    waits for it: let go once the put is under way, and waited for after."""

    def __init__(self, child):
        self.child = child
        self.timer = None

    def start(self):
        # The front end's put starts, then finds the folder locked and waits;
        # the other writer goes on after a while (the order of the two
        # writes is the same either way: the other holds the lock first).
        def go():
            try:
                self.child.stdin.write("\n")
                self.child.stdin.flush()
            except OSError:
                pass

        self.timer = threading.Timer(1.0, go)
        self.timer.start()

    def finish(self):
        self.timer.join()
        code = self.child.wait(timeout=HANG)
        rest = self.child.stderr.read()
        assert code == 0, f"the other writer failed ({code}): {rest}"


def hooked(args, hook, point, stdin=None):
    """The CLI run with the test hook `hook`, once it says it stopped at `point`."""
    env = {k: v for k, v in os.environ.items() if k != "MSHCONV_GAME_DIR"}
    env["MSHCONV_TEST_TXN"] = hook
    child = subprocess.Popen(
        [cli(), *args], env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    timer = threading.Timer(HANG, child.kill)
    timer.start()
    try:
        for line in child.stderr:
            if line.startswith(f"mshconv test hook: stopped at point {point} "):
                return child
    finally:
        timer.cancel()
    raise AssertionError(f"the CLI never stopped at point {point} (exit {child.wait()})")


def interrupted(root, path):
    """A CLI write of a new entry killed after its temporary file (point 2): a journal left."""
    child = hooked(["convert", str(WALKER), f"{root / path}:NEW.MSH", "--add"], "stop:2", 2)
    child.kill()
    child.wait()
    assert (root / path).parent.joinpath(".mshconv.journal").exists()


def writer_waiting(root, path):
    """A CLI write of a new entry paused holding the folder's lock (point 1)."""
    args = ["convert", str(WALKER), f"{root / path}:NEW.MSH", "--add"]
    return Beside(hooked(args, "pause:1", 1, stdin=subprocess.PIPE))


def read_only(root, path):
    os.chmod(root / path, 0o444)


def library_edit(root):
    """Another model's repaint of the texture TANK shares with it (pipe.msh's TANK_BODY.0, green)."""
    import mshconv

    game = root / "game"
    pipe = game / "models" / "pipe.msh"
    wear = (game / "models" / "pipe.wea").read_bytes()
    glb = mshconv.convert(pipe.read_bytes(), "glb", game_dir=game, wear=wear).files["model.glb"]
    mshconv.write_model(gltf_edits.repaint(glb, "TANK_BODY.0", GREEN), pipe, game_dir=game)


BETWEEN = dict(interrupted=interrupted, writer_waiting=writer_waiting, read_only=read_only, library_edit=library_edit)


def snapshot(root: pathlib.Path) -> dict:
    """Every file under `root` but the writers' own (dot files): its sha256,
    or `link:TARGET` for a symbolic link."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            if name.startswith("."):
                continue
            path = pathlib.Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                files[rel] = "link:" + os.readlink(path)
            else:
                files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def game_dir_of(row, root):
    """The folder the row gives as the game folder, or None."""
    return {None: None, "option": root / "game", "setting": root / "game", "empty": root / "empty"}[row["game_dir"]]


def run(row: dict, work: pathlib.Path, front_end) -> dict:
    """The row through `front_end` (an object with ``export(row, root)`` and
    ``put(row, root, model)`` returning ``{"error", "codes", "said"}``): the
    outcome, the files changed (their sha256) and the checks' results."""
    work.mkdir(parents=True, exist_ok=True)
    root = make_folder(work, row)
    try:
        model = front_end.export(row, root)
        beside = [BETWEEN[s[0]](root, *s[1:]) for s in row.get("between", [])]
        beside = [b for b in beside if b is not None]
        before = snapshot(root)
        for b in beside:
            b.start()
        try:
            outcome = front_end.put(row, root, model)
        finally:
            for b in beside:
                b.finish()
    finally:
        getattr(front_end, "close", lambda: None)()
    after = snapshot(root)
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    outcome["changed"] = {p: after.get(p) for p in changed}
    backups = getattr(front_end, "backups", True)
    checks = [c for c in row["expect"]["checks"] if backups or c[0] != "backup_is_original"]
    outcome["checks"] = [list(c) + [CHECKS[c[0]](root, *c[1:])] for c in checks]
    outcome["codes"] = sorted(set(outcome["codes"]))
    return outcome


# Checks: oracles independent of the writer (the fixture's bytes, the file system).


def entries_of(path):
    """An NRes archive's entry names and payloads, read by the tests' own reader."""
    import struct

    data = pathlib.Path(path).read_bytes()
    count, size = struct.unpack_from("<II", data, 8)
    table = size - 64 * count
    out = {}
    for i in range(count):
        at = table + 64 * i
        length = struct.unpack_from("<I", data, at + 12)[0]
        name = data[at + 20 : at + 56].split(b"\0")[0].decode("ascii")
        offset = struct.unpack_from("<I", data, at + 56)[0]
        out[name.upper()] = data[offset : offset + length]
    return out


def entry_is_original(root, path, entry):
    return entries_of(root / path)[entry] == entries_of(GAME / "units.rlb")[entry]


def entry_equals(root, path, entry, original):
    return entries_of(root / path).get(entry) == entries_of(GAME / "units.rlb")[original]


def has_entry(root, path, entry):
    return entry in entries_of(root / path)


def lacks_entry(root, path, entry):
    return entry not in entries_of(root / path)


def is_link(root, path):
    return (root / path).is_symlink()


def no_journal(root, folder):
    return not (root / folder / ".mshconv.journal").exists()


def backup_is_original(root, path):
    return (root / (path + ".bak")).read_bytes() == (GAME / pathlib.Path(path).name).read_bytes()


def only_entries_changed(root, path, names):
    """The entries of the archive or library `path` whose bytes differ from
    the fixture's (or are new) are exactly `names`; none is lost."""
    now, then = entries_of(root / path), entries_of(GAME / pathlib.Path(path).name)
    return set(then) <= set(now) and {n for n in now if now[n] != then.get(n)} == set(names)


CHECKS = dict(
    only_entries_changed=only_entries_changed,
    entry_is_original=entry_is_original,
    entry_equals=entry_equals,
    has_entry=has_entry,
    lacks_entry=lacks_entry,
    is_link=is_link,
    no_journal=no_journal,
    backup_is_original=backup_is_original,
)
