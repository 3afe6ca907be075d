"""Blender add-on: File > Import/Export > Parkan model (.msh, .rlb).

The game's models open in Blender and go back into the game's files through
the ``mshconv`` library: a model is converted to glTF in memory, imported with
Blender's own glTF importer, and reorganised for editing (the other levels of
detail and groups as hidden collections); the export undoes that, writes glTF
with the settings the exact round trip needs and converts it back with the
library, into a ``.msh`` or an archive entry. An unedited model comes back
byte for byte. The export writes the model the import made (its collection),
leaving the rest of the scene out. No format rule is implemented here, and
no file is written but by the library.

Scripts: ``bpy.ops.import_scene.parkan_msh(filepath=..., entry="", game_dir="")``
and ``bpy.ops.export_scene.parkan_msh(filepath=..., entry="", game_dir="", add=False, dry_run=False)``
(``game_dir`` empty: the preference's game folder).
Installed from the wheel (``pip install mshconv``), ``mshconv_blender.register()``
enables it; as a Blender extension (scripts/blender-extension.sh) Blender does.
"""

import bpy

from . import operators, preferences

_classes = (
    preferences.Preferences,
    operators.ImportParkanMsh,
    operators.ExportParkanMsh,
)


def _menu_import(self, context):
    self.layout.operator(operators.ImportParkanMsh.bl_idname, text="Parkan model (.msh, .rlb)")


def _menu_export(self, context):
    self.layout.operator(operators.ExportParkanMsh.bl_idname, text="Parkan model (.msh, .rlb)")


def register():
    """Registers the operators, the preference and the File menu entries."""
    for cls in _classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    """Removes what register() added."""
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
