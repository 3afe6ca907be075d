"""The add-on's runner: a Blender 4.2 process (the bpy module) that installs
the extension zip as README says (Install from Disk), sets its Game folder
preference where the row has it as the setting, and runs rows as a user
would: import the model with the add-on's operator, edit it in Blender,
export it with the add-on's operator. Codes from the reports it makes.

    python addon_worker.py EXTENSION.zip JOBS.json RESULTS.json

JOBS.json is a list of ``[scenario id, work folder]``; RESULTS.json maps
each id to harness.run's outcome (written after each row)."""

import json
import os
import pathlib
import re
import sys
import tempfile
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import bpy  # noqa: E402

from conformance import harness, scenarios  # noqa: E402

MODULE = "bl_ext.user_default.mshconv_blender"
CODE = re.compile(r"\[([a-z0-9_]+\.[a-z0-9_.]+)\]")
ROBOT = harness.SMALL / "models" / "m242_robot.msh"


def said(call):
    """Runs `call` with the process's stdout and stderr (where Blender prints
    the reports of a script's operator) in a file: its result and that text."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            result = call()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        f.seek(0)
        return result, f.read().decode("utf-8", "replace")


class Addon:
    def __init__(self, preferences):
        self.preferences = preferences

    def export(self, row, root):
        """The user's import (textured from the game folder), and edit in Blender."""
        others = ("scene_with_others",) in [tuple(s) for s in row.get("before", [])]
        bpy.ops.wm.read_homefile(use_empty=not others, use_factory_startup=True)
        if others:
            assert {"Cube", "Camera", "Light"} <= {o.name for o in bpy.data.objects}
            assert bpy.ops.import_scene.parkan_msh(filepath=str(ROBOT)) == {"FINISHED"}
            bpy.data.collections["m242_robot"].hide_viewport = True
        result = bpy.ops.import_scene.parkan_msh(
            filepath=str(root / "game" / "units.rlb"), entry=row["source"], game_dir=str(root / "game")
        )
        assert result == {"FINISHED"}, result
        source = bpy.data.collections[row["source"].rsplit(".", 1)[0]]
        bpy.context.view_layer.objects.active = next(iter(source.all_objects))
        edit = row.get("edit")
        if edit and edit[0] == "repaint":
            image = bpy.data.images[edit[1]]
            width, height = image.size
            image.pixels = [c / 255 for c in edit[2]] * (width * height)
            image.update()
        return None

    def put(self, row, root, _model):
        put = row["put"]
        game_dir = harness.game_dir_of(row, root)
        self.preferences.game_dir = str(game_dir) if row["game_dir"] == "setting" else ""
        options = dict(filepath=str(root / put["path"]), entry=put["entry"], add=put.get("add", False))
        if row["game_dir"] in ("option", "empty"):
            options["game_dir"] = str(game_dir)

        def export():
            try:
                return bpy.ops.export_scene.parkan_msh(**options), ""
            except RuntimeError as e:
                return {"CANCELLED"}, str(e)

        (result, error), text = said(export)
        codes = CODE.findall(text)
        errors = CODE.findall(error)
        if "FINISHED" in result:
            return dict(error=None, codes=codes, said=text)
        return dict(error=(errors or ["(no code)"])[0], codes=[c for c in codes if c not in errors], said=text + error)


def main():
    zip_path, jobs, results_path = sys.argv[1:4]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
    assert result == {"FINISHED"}, result
    import mshconv

    assert mshconv.__file__.startswith(os.environ["BLENDER_USER_RESOURCES"]), mshconv.__file__
    front_end = Addon(bpy.context.preferences.addons[MODULE].preferences)
    results = {}
    for scenario_id, work in json.loads(pathlib.Path(jobs).read_text()):
        try:
            results[scenario_id] = harness.run(scenarios.row(scenario_id), pathlib.Path(work), front_end)
        except Exception:  # noqa: BLE001 - the row fails with what happened, the others run
            results[scenario_id] = dict(crashed=traceback.format_exc())
        pathlib.Path(results_path).write_text(json.dumps(results))
    print("ADDON_WORKER_DONE")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
