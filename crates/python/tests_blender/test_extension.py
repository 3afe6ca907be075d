"""The extension zip (scripts/blender-extension.sh) installs from disk into Blender 4.2 and works.

Run in a Blender process of its own (its user folder a temporary one), given
the zip as MSHCONV_EXTENSION_ZIP (scripts/test-python.sh builds it).
"""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import SMALL

SCRIPT = textwrap.dedent(
    """
    import os, sys
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.extensions.package_install_files(
        filepath=sys.argv[1], repo="user_default", enable_on_install=True
    )
    assert result == {"FINISHED"}, result
    enabled = [a.module for a in bpy.context.preferences.addons]
    assert "bl_ext.user_default.mshconv_blender" in enabled, enabled
    assert bpy.ops.import_scene.parkan_msh(filepath=sys.argv[2]) == {"FINISHED"}
    out = os.path.join(os.environ["BLENDER_USER_RESOURCES"], "out.msh")
    assert bpy.ops.export_scene.parkan_msh(filepath=out) == {"FINISHED"}
    import mshconv
    assert mshconv.__file__.startswith(os.environ["BLENDER_USER_RESOURCES"]), mshconv.__file__
    same = open(out, "rb").read() == open(sys.argv[2], "rb").read()
    print("EXTENSION_OK" if same else "EXTENSION_DIFFERS")
    sys.stdout.flush()
    os._exit(0)
    """
)


@pytest.mark.skipif(not os.environ.get("MSHCONV_EXTENSION_ZIP"), reason="give MSHCONV_EXTENSION_ZIP")
def test_the_extension_installs_from_disk_and_round_trips(tmp_path):
    model = SMALL / "models" / "m095_walker.msh"
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path))
    # Not the wheel this test session imports: the extension brings its own.
    env.pop("PYTHONPATH", None)
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, os.environ["MSHCONV_EXTENSION_ZIP"], str(model)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "EXTENSION_OK" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
