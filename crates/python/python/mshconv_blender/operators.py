"""The import and export operators: the library converts, Blender's glTF add-on moves the data."""

import os
import pathlib
import tempfile

import bpy
from bpy_extras.io_utils import ExportHelper, ImportHelper

import mshconv

from . import preferences, scene

GLTF_EXPORT = dict(export_format="GLB", export_extras=True)
"""Blender's glTF export for the exact way back (docs/BLENDER.md, "Export
settings"): Custom Properties on, which carries the original model."""

FPS = 24
"""The scene rate the library's export plays one game frame per Blender frame at."""


def report_error(operator, e: mshconv.Error) -> set:
    """An error as a Blender report with its code; the operator is cancelled."""
    operator.report({"ERROR"}, f"[{e.code}] {e}")
    return {"CANCELLED"}


def report_notes(operator, notes) -> None:
    """Every note of a conversion as a warning."""
    for note in notes:
        operator.report({"WARNING"}, f"[{note.code}] {note.message}")


def stem(name: str) -> str:
    """A file or entry name without its extension (``TANK.MSH`` -> ``TANK``)."""
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


def is_archive(path: str) -> bool:
    return path.lower().endswith(".rlb")


def model_names(archive: mshconv.Archive) -> list[str]:
    return [e.name for e in archive.entries() if e.type == "MSH"]


def read_model(path: str, entry: str) -> tuple[bytes, bytes | None, str | None]:
    """The model's bytes, its WEAR (the material list ``STEM.wea`` beside it
    or in its archive) and the clip list beside a loose file, if there are."""
    if entry:
        archive = mshconv.Archive(path)
        data = archive.read(entry)
        try:
            wear = archive.read(stem(entry) + ".wea")
        except mshconv.Error:
            wear = None
        return data, wear, None
    file = pathlib.Path(path)
    data = file.read_bytes()
    wear = next((p.read_bytes() for p in file.parent.glob("*") if p.name.lower() == f"{file.stem}.wea".lower()), None)
    clips = file.with_name(f"{file.stem}.clips.json")
    return data, wear, clips.read_text() if clips.is_file() else None


def entry_property():
    """The operators' `entry`: a model of an archive."""
    return bpy.props.StringProperty(
        name="Entry", description="The model's entry in an .rlb archive (TANK.MSH)", default=""
    )


def model_collection(context, name: str):
    """A new collection for the model under the scene's, made the active one."""
    coll = bpy.data.collections.new(name)
    context.scene.collection.children.link(coll)
    layer = context.view_layer.layer_collection.children[coll.name]
    context.view_layer.active_layer_collection = layer
    return coll


def set_frame_range(scene, actions) -> None:
    """The scene's frame range over the imported actions (game frame = Blender frame)."""
    ranges = [a.frame_range for a in actions]
    if ranges:
        scene.frame_start = int(min(r[0] for r in ranges))
        scene.frame_end = int(max(r[1] for r in ranges))


class ImportParkanMsh(bpy.types.Operator, ImportHelper):
    """Import a Parkan model (.msh, or a model of an .rlb archive) with its textures"""

    bl_idname = "import_scene.parkan_msh"
    bl_label = "Import Parkan model"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: bpy.props.StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    entry: entry_property()
    game_dir: preferences.game_dir_property("The game's folder for the textures (empty: the add-on's preference)")

    def execute(self, context):
        if is_archive(self.filepath) and not self.entry:
            return self.choose_entry(context)
        try:
            return self.import_model(context)
        except mshconv.Error as e:
            return report_error(self, e)

    def choose_entry(self, context):
        """An archive without an entry: a list of its models to choose from (in scripts: an error)."""
        try:
            names = model_names(mshconv.Archive(self.filepath))
        except mshconv.Error as e:
            return report_error(self, e)
        if context.window is None or bpy.app.background:
            self.report(
                {"ERROR"},
                f"[request.entry_required] {self.filepath} is an archive of {len(names)} models "
                f"({', '.join(names[:5])}): give entry=",
            )
            return {"CANCELLED"}
        path, game_dir = self.filepath, self.game_dir

        def draw(menu, _context):
            for name in names:
                op = menu.layout.operator(ImportParkanMsh.bl_idname, text=name)
                op.filepath, op.entry, op.game_dir = path, name, game_dir

        context.window_manager.popup_menu(draw, title="Models of the archive", icon="IMPORT")
        return {"CANCELLED"}

    def import_model(self, context):
        data, wear, clips = read_model(self.filepath, self.entry)
        name = stem(self.entry or os.path.basename(self.filepath))
        game_dir = preferences.game_dir(self.game_dir)
        options = {"clips": clips} if clips else {}
        out = mshconv.convert(data, "glb", name=name, game_dir=game_dir or None, wear=wear, **options)
        report_notes(self, out.notes)
        scene_ = context.scene
        scene_.render.fps, scene_.render.fps_base = FPS, 1.0
        coll = model_collection(context, name)
        actions_before = set(bpy.data.actions)
        objects_before = set(bpy.data.objects)
        with tempfile.TemporaryDirectory() as tmp:
            glb = os.path.join(tmp, f"{name}.glb")
            with open(glb, "wb") as f:
                f.write(out.files[f"{name}.glb"])
            result = bpy.ops.import_scene.gltf(filepath=glb)
        if "FINISHED" not in result:
            self.report({"ERROR"}, "Blender's glTF importer did not import the model")
            return {"CANCELLED"}
        new_objects = [o for o in bpy.data.objects if o not in objects_before]
        scene.reorganise(new_objects, coll)
        set_frame_range(scene_, [a for a in bpy.data.actions if a not in actions_before])
        return {"FINISHED"}


class ExportParkanMsh(bpy.types.Operator, ExportHelper):
    """Export the scene's Parkan model to a .msh, or into a model entry of an .rlb archive"""

    bl_idname = "export_scene.parkan_msh"
    bl_label = "Export Parkan model"
    bl_options = {"REGISTER"}

    filename_ext = ".msh"
    check_extension = False
    filter_glob: bpy.props.StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    entry: entry_property()
    game_dir: preferences.game_dir_property(
        "The game's folder: the textures and materials go back into its libraries (backed up) and the WEAR"
    )
    add: bpy.props.BoolProperty(
        name="Add", description="Add the entry when the archive has none of that name", default=False
    )

    def execute(self, context):
        if is_archive(self.filepath) and not self.entry:
            self.report({"ERROR"}, "[request.entry_required] name the archive's entry to write (entry=)")
            return {"CANCELLED"}
        try:
            return self.export_model(context)
        except mshconv.Error as e:
            return report_error(self, e)

    def glb(self, context) -> bytes:
        """The scene as Blender's glTF export writes it, the reorganisation undone."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.glb")
            with scene.ShownAsExported(context.scene):
                bpy.ops.export_scene.gltf(filepath=path, **GLTF_EXPORT)
            with open(path, "rb") as f:
                return f.read()

    def export_model(self, context):
        name = stem(self.entry or os.path.basename(self.filepath))
        glb = self.glb(context)
        game_dir = preferences.game_dir(self.game_dir) if self.game_dir else ""
        entry = self.entry or None
        if game_dir:
            # The model with its look into the game folder, as the CLI writes it.
            notes = mshconv.write_model(glb, self.filepath, entry=entry, add=self.add, game_dir=game_dir)
            report_notes(self, notes)
            return {"FINISHED"}
        out = mshconv.convert(glb, "msh", name=name)
        report_notes(self, out.notes)
        msh = out.files[f"{name}.msh"]
        if entry:
            placed = mshconv.Archive(self.filepath).put(entry, msh, add=self.add)
            self.report({"INFO"}, f"{self.filepath}:{entry} {placed}")
            return {"FINISHED"}
        target = pathlib.Path(self.filepath)
        for file_name, data in list(out.files.items())[1:]:
            write_atomically(target.with_name(file_name.replace(name, target.stem, 1)), data)
        write_atomically(target, msh)
        return {"FINISHED"}


def write_atomically(path: pathlib.Path, data: bytes) -> None:
    """Writes through a temporary file beside it and a rename (never half a file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
