"""The add-on's preference: the game folder, used when an operator gets none."""

import bpy


def addon_name() -> str:
    """The name Blender knows the add-on by (the package, as an extension or from the wheel)."""
    return __package__


def game_dir_property(description: str):
    """A game folder setting (the preference and the operators' `game_dir`)."""
    return bpy.props.StringProperty(name="Game folder", description=description, default="", subtype="DIR_PATH")


class Preferences(bpy.types.AddonPreferences):
    """Edit > Preferences > Add-ons > Parkan models."""

    bl_idname = __package__

    game_dir: game_dir_property("The game's folder (Material.lib, Textures.lib): the models' textures come from it")

    def draw(self, context):
        self.layout.prop(self, "game_dir")


def game_dir(given: str) -> str:
    """The game folder an operator uses: the one given, else the preference."""
    if given:
        return bpy.path.abspath(given)
    addon = bpy.context.preferences.addons.get(addon_name())
    if addon is not None and addon.preferences and addon.preferences.game_dir:
        return bpy.path.abspath(addon.preferences.game_dir)
    return ""
