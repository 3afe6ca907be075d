"""The runners of the CLI, the service and the Python package: each
translates a row's put into its front end's call and its answer back into
``{"error", "codes", "said"}``. The add-on's runner is addon_worker.py (it
runs in a Blender process of its own)."""

import io
import json
import logging
import os
import re
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile

from . import harness, scenarios

CODE = re.compile(r"\b(note|error)\[([a-z0-9_]+\.[a-z0-9_.]+)\]")


class Cli:
    """``mshconv convert IN ARCHIVE:ENTRY [--add] [--game-dir DIR]``; codes from its
    ``note[CODE]`` and ``error[CODE]`` lines, the game folder's setting
    ``MSHCONV_GAME_DIR``."""

    export = staticmethod(harness.export)

    def put(self, row, root, model):
        data, fmt = model
        given = root.parent / f"edited.{fmt}"
        given.write_bytes(data)
        put = row["put"]
        args = [harness.cli(), "convert", str(given), f"{root / put['path']}:{put['entry']}"]
        if put.get("add"):
            args.append("--add")
        env = {k: v for k, v in os.environ.items() if k != "MSHCONV_GAME_DIR"}
        game_dir = harness.game_dir_of(row, root)
        if row["game_dir"] == "setting":
            env["MSHCONV_GAME_DIR"] = str(game_dir)
        elif game_dir is not None:
            args += ["--game-dir", str(game_dir)]
        run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=harness.HANG)
        said = run.stdout + run.stderr
        codes = [c for kind, c in CODE.findall(said) if kind == "note" and c not in scenarios.PLACEMENT]
        errors = [c for kind, c in CODE.findall(said) if kind == "error"]
        error = (errors or ["(no code)"])[0] if run.returncode else None
        return dict(error=error, codes=codes, said=said)


class Python:
    """``mshconv.write_model(data, path, entry=, add=, game_dir=)``: its Note
    codes (and the notes it logs), ``mshconv.Error.code``."""

    export = staticmethod(harness.export)

    def put(self, row, root, model):
        import mshconv

        data, _ = model
        put = row["put"]
        game_dir = harness.game_dir_of(row, root)
        logged = []
        handler = logging.Handler()
        handler.emit = lambda record: logged.append(record.getMessage())
        logger = logging.getLogger("mshconv")
        logger.addHandler(handler)
        try:
            notes = mshconv.write_model(
                data, root / put["path"], entry=put["entry"], add=put.get("add", False), game_dir=game_dir
            )
            error, codes, said = None, [n.code for n in notes], "\n".join(f"[{n.code}] {n.message}" for n in notes)
        except mshconv.Error as e:
            error, codes, said = e.code, [], str(e)
        finally:
            logger.removeHandler(handler)
        codes += [c for _, c in CODE.findall("\n".join(logged))]
        return dict(error=error, codes=codes, said=said + "\n" + "\n".join(logged))


class Service:
    """The server binary on loopback (``--game-dir`` where the row has a game
    folder, as an option or the setting: the service's only way), the
    archive uploaded to ``POST /v1/archive/put``; codes from
    ``x-mshconv-notes`` and the problem document's ``code``; the answer (the
    archive, or a zip of it and the libraries the look changed) written where
    the user's files are."""

    backups = False
    """It answers the files: no backups beside them."""

    def __init__(self, binary):
        self.binary = binary
        self.child = None

    def start(self, game_dir):
        args = [self.binary, "--addr", "127.0.0.1:0"] + (["--game-dir", str(game_dir)] if game_dir else [])
        child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        timer = threading.Timer(harness.HANG, child.kill)
        timer.start()
        try:
            for line in child.stdout:
                if "listening on http://" in line:
                    addr = line.split("listening on http://", 1)[1].split()[0]
                    # Its log read on, so that it never blocks writing it.
                    threading.Thread(target=lambda: [None for _ in child.stdout], daemon=True).start()
                    return child, addr
        finally:
            timer.cancel()
        raise AssertionError(f"the server did not start (exit {child.wait()})")

    def export(self, row, root):
        """The user's export; the service started (it runs while the row's
        other steps happen, as a service does)."""
        self.child, self.addr = self.start(harness.game_dir_of(row, root))
        return harness.export(row, root)

    def close(self):
        """The server stopped."""
        if self.child is not None:
            self.child.kill()
            self.child.wait()
            self.child = None

    def put(self, row, root, model):
        data, fmt = model
        put = row["put"]
        archive = root / put["path"]
        addr = self.addr
        try:
            query = {"entry": put["entry"]}
            if put.get("add"):
                query["add"] = "true"
            boundary = uuid.uuid4().hex
            body = b""
            fields = (("archive", archive.name, archive.read_bytes()), ("file", f"edited.{fmt}", data))
            for field, name, content in fields:
                body += (
                    f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n"
                    "Content-Type: application/octet-stream\r\n\r\n"
                ).encode() + content + b"\r\n"
            body += f"--{boundary}--\r\n".encode()
            request = urllib.request.Request(
                f"http://{addr}/v1/archive/put?{urllib.parse.urlencode(query)}",
                data=body,
                headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
            )
            try:
                with urllib.request.urlopen(request, timeout=harness.HANG) as answer:
                    notes = json.loads(answer.headers.get("x-mshconv-notes", "[]"))
                    kind, content = answer.headers.get("content-type", ""), answer.read()
            except urllib.error.HTTPError as e:
                problem = json.loads(e.read() or b"{}")
                return dict(error=problem.get("code", f"HTTP {e.code}"), codes=[], said=json.dumps(problem))
        finally:
            self.close()
        if "zip" in kind:
            with zipfile.ZipFile(io.BytesIO(content)) as z:
                for name in z.namelist():
                    place = archive if name == archive.name else root / "game" / name
                    place.write_bytes(z.read(name))
        else:
            archive.write_bytes(content)
        return dict(error=None, codes=[n["code"] for n in notes], said=json.dumps(notes))
