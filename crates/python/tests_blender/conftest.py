"""The add-on's tests run in real Blender (the bpy 4.2 module of .venv-blender).

The bpy module sometimes crashes at interpreter exit: the session ends with
os._exit and pytest's exit status once everything is reported.
"""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SMALL = ROOT / "fixtures" / "small"
MODELS = sorted((SMALL / "models").glob("*.msh"))
GAME = SMALL / "game"


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(getattr(config, "_mshconv_status", 0))


def pytest_sessionfinish(session, exitstatus):
    session.config._mshconv_status = int(exitstatus)


@pytest.fixture
def blender():
    """An empty scene with the add-on enabled (from the installed wheel)."""
    import bpy

    import mshconv_blender

    bpy.ops.wm.read_factory_settings(use_empty=True)
    if not hasattr(bpy.types, "IMPORT_SCENE_OT_parkan_msh"):
        mshconv_blender.register()
    return bpy
