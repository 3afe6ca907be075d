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


@pytest.fixture
def game(tmp_path):
    """A copy of the fixture game's folder."""
    import shutil

    folder = tmp_path / "game"
    shutil.copytree(GAME, folder)
    return folder


@pytest.fixture
def preference(blender):
    """The add-on enabled as Blender enables it, for its preferences
    (``preference.game_dir``); registered as before afterwards."""
    import addon_utils

    import mshconv_blender

    mshconv_blender.unregister()
    addon_utils.enable("mshconv_blender", default_set=True)
    yield blender.context.preferences.addons["mshconv_blender"].preferences
    addon_utils.disable("mshconv_blender", default_set=True)
    mshconv_blender.register()


def repaint_one_texture(bpy, name=""):
    """Inverts the colour of one pixel of the first image with pixels (whose name starts with `name`)."""
    image = next(i for i in bpy.data.images if i.size[0] > 0 and i.name.startswith(name))
    pixels = list(image.pixels)
    pixels[0:4] = [1.0 - pixels[0], 1.0 - pixels[1], 1.0 - pixels[2], pixels[3]]
    image.pixels = pixels
    image.update()
