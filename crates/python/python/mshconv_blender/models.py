"""Which model of the scene an export writes.

The import records on the collection it makes where the model came from
(its file and entry) and the scene's custom properties the model's glTF
brought (its original bytes, for the exact way back). The export writes one
such collection: the active object's model, else the model imported from the
file and entry written to, else the only one; anything else in the scene is
left out (and said). A scene without an imported model is written whole.
For the time of the export the scene is as the model's import left it
(its properties and frame range), whatever was imported since.
"""

import json
import os
import struct

from .codes import Refused

SOURCE_FILE = "mshconv_file"
"""A model's collection: the file it was imported from (an absolute path)."""

SOURCE_ENTRY = "mshconv_entry"
"""A model's collection: its entry in that archive ("" for a loose file)."""

SCENE_PROPS = "mshconv_scene"
"""A model's collection: the scene's custom properties its glTF brought."""

NAMED = 5
"""How many names a report lists before "and N more"."""


def some_names(names: list[str]) -> str:
    """The first few names, then "and N more"."""
    shown = ", ".join(names[:NAMED])
    return shown if len(names) <= NAMED else f"{shown} and {len(names) - NAMED} more"


def plain(value):
    """A custom property's value as plain Python (a copy, not Blender's)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "to_list"):
        return value.to_list()
    return value


def scene_extras_keys(glb: bytes) -> list[str]:
    """The keys of the scene's extras in a GLB (what the importer makes the
    scene's custom properties)."""
    (length,) = struct.unpack_from("<I", glb, 12)
    doc = json.loads(glb[20 : 20 + length])
    scenes = doc.get("scenes") or [{}]
    extras = scenes[doc.get("scene", 0)].get("extras")
    return list(extras) if isinstance(extras, dict) else []


def record(collection, scene, path: str, entry: str, keys: list[str]) -> None:
    """Marks `collection` as the model imported from `path` (and `entry`),
    keeping the scene's properties `keys` as the import left them."""
    collection[SOURCE_FILE] = os.path.abspath(path)
    collection[SOURCE_ENTRY] = entry
    collection[SCENE_PROPS] = {k: plain(scene[k]) for k in keys if k in scene}


def label(collection) -> str:
    """`units.rlb:TANK.MSH`, or the file, a model came from."""
    path = os.path.basename(collection.get(SOURCE_FILE, ""))
    entry = collection.get(SOURCE_ENTRY, "")
    return f"{path}:{entry}" if entry else path


def imported(scene) -> list:
    """The collections of the models imported into `scene`."""
    return [c for c in scene.collection.children_recursive if SOURCE_FILE in c]


def came_from(collection, path: str, entry: str) -> bool:
    """Whether the model was imported from `path` (and `entry`)."""
    same_file = os.path.realpath(collection[SOURCE_FILE]) == os.path.realpath(path)
    return same_file and collection.get(SOURCE_ENTRY, "").casefold() == entry.casefold()


def owner_of_active(context, models: list):
    """The model the active object belongs to, if any."""
    active = context.view_layer.objects.active
    if active is None:
        return None
    return next((m for m in models if active.name in m.all_objects), None)


def suggested(context):
    """The model an export would write before its file is chosen: the
    active object's, else the only one."""
    models = imported(context.scene)
    owner = owner_of_active(context, models)
    return owner if owner is not None else (models[0] if len(models) == 1 else None)


def choose(context, path: str, entry: str):
    """The model an export to `path` (`entry`) writes: the active object's,
    else the one imported from there, else the only one; None when the
    scene has no imported model. Refused when it cannot tell."""
    models = imported(context.scene)
    if not models:
        return None
    owner = owner_of_active(context, models)
    origin = [m for m in models if came_from(m, path, entry)]
    target = f"{os.path.basename(path)}:{entry}" if entry else os.path.basename(path)
    if owner is not None:
        if origin and owner not in origin:
            raise Refused(
                "addon.which_model",
                f"the active object is of {owner.name} (from {label(owner)}), but {target} is where "
                f"{origin[0].name} came from: select an object of the model to write, "
                f"or remove {origin[0].name} from the scene",
            )
        return owner
    if len(origin) == 1:
        return origin[0]
    if len(models) == 1:
        return models[0]
    raise Refused(
        "addon.which_model",
        f"the scene holds {len(models)} imported models ({some_names([m.name for m in models])}): "
        "select an object of the one to write",
    )


def left_out(scene, model) -> list[str]:
    """The scene's objects that are not of `model`, by name."""
    ours = {o.name for o in model.all_objects}
    return sorted(o.name for o in scene.objects if o.name not in ours)


def set_frame_range(scene, actions) -> None:
    """The scene's frame range over the actions (game frame = Blender frame)."""
    ranges = [a.frame_range for a in actions]
    if ranges:
        scene.frame_start = int(min(r[0] for r in ranges))
        scene.frame_end = int(max(r[1] for r in ranges))


def actions_of(model) -> list:
    """The actions the model's objects play (their own and their NLA strips')."""
    found = []
    for obj in model.all_objects:
        data = obj.animation_data
        if data is None:
            continue
        if data.action is not None:
            found.append(data.action)
        found.extend(s.action for t in data.nla_tracks for s in t.strips if s.action is not None)
    return found


class SceneAsImported:
    """For the time of a glTF export of `model`: the scene as the model's
    import left it, whatever was imported since. The scene's custom
    properties that imports brought are the model's own, and the frame
    range is its actions' (the export samples the animation over it);
    afterwards as they were."""

    def __init__(self, scene, model, models):
        self.scene = scene
        self.own = dict(model.get(SCENE_PROPS, {}))
        self.keys = {k for m in models for k in m.get(SCENE_PROPS, {})}
        self.saved = {}
        self.actions = actions_of(model)
        self.frames = (scene.frame_start, scene.frame_end)

    def __enter__(self):
        for key in self.keys:
            if key in self.scene:
                self.saved[key] = plain(self.scene[key])
                del self.scene[key]
        for key, value in self.own.items():
            self.scene[key] = plain(value)
        set_frame_range(self.scene, self.actions)
        return self

    def __exit__(self, *exc):
        for key in self.keys:
            if key in self.scene:
                del self.scene[key]
        for key, value in self.saved.items():
            self.scene[key] = value
        self.scene.frame_start, self.scene.frame_end = self.frames
        return False
