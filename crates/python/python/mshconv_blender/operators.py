"""The import and export operators: the library converts, Blender's glTF add-on moves the data."""

import os
import pathlib
import tempfile
import traceback

import bpy
from bpy_extras.io_utils import ExportHelper, ImportHelper

import mshconv

from . import models, preferences, scene
from .codes import Refused, io_code

GLTF_EXPORT = dict(export_format="GLB", export_extras=True)
"""Blender's glTF export for the exact way back (docs/BLENDER.md, "Export
settings"): Custom Properties on, which carries the original model."""

FPS = 24
"""The scene rate the library's export plays one game frame per Blender frame at."""


def fail(operator, code: str, message: str) -> set:
    """An error as a Blender report with its code; the operator is cancelled."""
    operator.report({"ERROR"}, f"[{code}] {message}")
    return {"CANCELLED"}


def reported(operator, work) -> set:
    """Runs `work()`: every failure becomes a report with its code (the
    library's, the add-on's, a file's `io.*`), never a traceback; a bug in
    the add-on is `internal`, its traceback printed to the console."""
    try:
        return work()
    except (mshconv.Error, Refused) as e:
        return fail(operator, e.code, str(e))
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        return fail(operator, io_code(e), f"{where}{e.strerror or e}")
    except Exception as e:  # noqa: BLE001 - a report, not a traceback, for every failure
        traceback.print_exc()
        return fail(operator, "internal", f"a bug in the add-on (please report it): {type(e).__name__}: {e}")


def blender_gltf(what: str, call) -> set:
    """Blender's glTF importer or exporter run; its failure is `addon.gltf_failed`."""
    try:
        result = call()
    except RuntimeError as e:
        raise Refused("addon.gltf_failed", f"Blender's glTF {what} failed: {e}") from None
    if "FINISHED" not in result:
        raise Refused("addon.gltf_failed", f"Blender's glTF {what} did not finish ({', '.join(result)})")
    return result


def warn(operator, code: str, message: str) -> None:
    """A note as a Blender warning with its code."""
    operator.report({"WARNING"}, f"[{code}] {message}")


def report_notes(operator, notes) -> None:
    """Every note of a conversion as a warning."""
    for note in notes:
        warn(operator, note.code, note.message)


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


def source_model(model, path: str, entry: str) -> bytes | None:
    """The model a collection was imported from, when it is written somewhere
    else (written over it, the write takes the model it replaces), as the
    original its export is recognised against; None when it cannot be read."""
    if model is None:
        return None
    source, source_entry = model.get(models.SOURCE_FILE, ""), model.get(models.SOURCE_ENTRY, "")
    if not source or (os.path.abspath(path), entry or "") == (source, source_entry or ""):
        return None
    try:
        return read_model(source, source_entry)[0]
    except (OSError, mshconv.Error):
        return None


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


class ImportParkanMsh(bpy.types.Operator, ImportHelper):
    """Import a Parkan model (.msh, or a model of an .rlb archive) with its textures"""

    bl_idname = "import_scene.parkan_msh"
    bl_label = "Import Parkan model"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: bpy.props.StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    entry: entry_property()
    game_dir: preferences.game_dir_property("The game's folder for the textures (empty: the add-on's preference)")
    embed_original: bpy.props.BoolProperty(
        name="Embed original",
        description="Carry the model file itself in the scene (a self-contained file: its unedited parts come "
        "back byte for byte wherever it is written); by default the way back takes the model it writes over",
        default=False,
    )

    def execute(self, context):
        if is_archive(self.filepath) and not self.entry:
            return reported(self, lambda: self.choose_entry(context))
        return reported(self, lambda: self.import_model(context))

    def choose_entry(self, context):
        """An archive without an entry: a list of its models to choose from (in scripts: an error)."""
        names = model_names(mshconv.Archive(self.filepath))
        if context.window is None or bpy.app.background:
            return fail(
                self,
                "request.entry_required",
                f"{self.filepath} is an archive of {len(names)} models "
                f"({models.some_names(names)}): give entry=",
            )
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
        if self.embed_original:
            options["embed_original"] = "true"
        out = mshconv.convert(data, "glb", name=name, game_dir=game_dir or None, wear=wear, **options)
        report_notes(self, out.notes)
        scene_ = context.scene
        scene_.render.fps, scene_.render.fps_base = FPS, 1.0
        coll = model_collection(context, name)
        actions_before = set(bpy.data.actions)
        objects_before = set(bpy.data.objects)
        glb_bytes = out.files[f"{name}.glb"]
        with tempfile.TemporaryDirectory() as tmp:
            glb = os.path.join(tmp, f"{name}.glb")
            with open(glb, "wb") as f:
                f.write(glb_bytes)
            blender_gltf("import", lambda: bpy.ops.import_scene.gltf(filepath=glb))
        new_objects = [o for o in bpy.data.objects if o not in objects_before]
        scene.reorganise(new_objects, coll)
        models.record(coll, scene_, self.filepath, self.entry, models.scene_extras_keys(glb_bytes))
        models.set_frame_range(scene_, [a for a in bpy.data.actions if a not in actions_before])
        return {"FINISHED"}


class ExportParkanMsh(bpy.types.Operator, ExportHelper):
    """Export the Parkan model imported into the scene to a .msh, or into a model entry of an .rlb archive"""

    bl_idname = "export_scene.parkan_msh"
    bl_label = "Export Parkan model"
    bl_options = {"REGISTER"}

    filename_ext = ".msh"
    check_extension = False
    filter_glob: bpy.props.StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    entry: entry_property()
    game_dir: preferences.game_dir_property(
        "The game's folder: the textures and materials go back into its libraries (backed up) "
        "and the WEAR (empty: the add-on's preference)"
    )
    add: bpy.props.BoolProperty(
        name="Add", description="Add the entry when the archive has none of that name", default=False
    )
    dry_run: bpy.props.BoolProperty(
        name="Dry run",
        description="Report the files the export would change, and write nothing",
        default=False,
        options={"SKIP_SAVE"},
    )

    def invoke(self, context, event):
        """The file browser opens on where the model came from."""
        model = models.suggested(context)
        if model is not None and not self.filepath:
            self.filepath = model[models.SOURCE_FILE]
            self.entry = model.get(models.SOURCE_ENTRY, "")
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        if is_archive(self.filepath) and not self.entry:
            return fail(self, "request.entry_required", "name the archive's entry to write (entry=)")
        return reported(self, lambda: self.export_model(context))

    def target(self) -> str:
        """`units.rlb:TANK.MSH` or the file written."""
        return f"{self.filepath}:{self.entry}" if self.entry else self.filepath

    def glb(self, context, model) -> bytes:
        """The model's collection (the whole scene without one) as Blender's
        glTF export writes it, the reorganisation undone."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.glb")
            if model is None:
                with scene.ShownAsExported(context.scene.collection):
                    blender_gltf("export", lambda: bpy.ops.export_scene.gltf(filepath=path, **GLTF_EXPORT))
            else:
                every = models.imported(context.scene)
                with scene.ShownAsExported(model, context.view_layer), models.SceneAsImported(context.scene, model, every):
                    blender_gltf(
                        "export",
                        lambda: bpy.ops.export_scene.gltf(filepath=path, collection=model.name, **GLTF_EXPORT),
                    )
            with open(path, "rb") as f:
                return f.read()

    def export_model(self, context):
        model = models.choose(context, self.filepath, self.entry)
        if model is not None:
            others = models.left_out(context.scene, model)
            if others:
                warn(
                    self,
                    "addon.left_out",
                    f"{len(others)} objects not of the model {model.name} "
                    f"({models.label(model)}) left out of {self.target()}: {models.some_names(others)}",
                )
        glb = self.glb(context, model)
        # The model with its look into the game folder (the preference unless
        # one is given), as the CLI writes it; the library locks and plans.
        game_dir = preferences.game_dir(self.game_dir) or None
        entry = self.entry or None
        original = source_model(model, self.filepath, self.entry)
        if self.dry_run:
            plan = mshconv.write_model(
                glb, self.filepath, entry=entry, add=self.add, game_dir=game_dir, dry_run=True, original=original
            )
            report_notes(self, plan.notes)
            for f in plan.files:
                self.report({"INFO"}, f"would write {f.path} ({f.change}, {f.size} bytes)")
            changing = sum(f.change != "unchanged" for f in plan.files)
            self.report({"INFO"}, f"dry run: {changing} of {len(plan.files)} files would change; nothing written")
            return {"FINISHED"}
        notes = mshconv.write_model(
            glb, self.filepath, entry=entry, add=self.add, game_dir=game_dir, original=original
        )
        report_notes(self, notes)
        self.report({"INFO"}, f"{self.target()} written")
        return {"FINISHED"}
