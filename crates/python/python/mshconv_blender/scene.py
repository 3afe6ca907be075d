"""The reorganisation of an imported model for editing, and its undoing for export.

The library's glTF export shows LOD 0 group 0 and hides the other levels of
detail and groups by scale 0 on their mesh objects, named ``NODE|L<lod>G<group>``
(docs/BLENDER.md). In Blender they are put at scale 1 into hidden collections
of their own (``LOD 1 group 0``); the export puts them back at scale 0 for the
time of the glTF export, so the library takes them as they were shown.
"""

import re

import bpy

PIECE = re.compile(r"\|L(\d+)G(\d+)$")
"""A mesh object holding one node's level of detail and group."""

COLLECTION_PROP = "mshconv_lod_group"
"""A collection the import made for one level of detail and group (its value: ``L1G0``)."""


def piece_of(obj) -> tuple[int, int] | None:
    """(lod, group) of a piece's mesh object, None for other objects."""
    if obj.type != "MESH":
        return None
    m = PIECE.search(obj.name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def move_to(obj, coll) -> None:
    """Links `obj` into `coll` alone."""
    for old in list(obj.users_collection):
        old.objects.unlink(obj)
    coll.objects.link(obj)


def reorganise(objects, root_collection) -> list:
    """Puts the model's objects into its collection, and every piece other
    than L0G0 (at scale 0) at scale 1 into its own hidden collection in it.

    Returns the collections made, in (lod, group) order.
    """
    made = {}
    for obj in objects:
        move_to(obj, root_collection)
    for obj in objects:
        where = piece_of(obj)
        if where is None or where == (0, 0) or any(obj.scale):
            continue
        key = f"L{where[0]}G{where[1]}"
        coll = made.get(key)
        if coll is None:
            coll = bpy.data.collections.new(f"{root_collection.name} LOD {where[0]} group {where[1]}")
            coll[COLLECTION_PROP] = key
            root_collection.children.link(coll)
            made[key] = coll
        move_to(obj, coll)
        obj.scale = (1.0, 1.0, 1.0)
    for key in sorted(made):
        made[key].hide_viewport = True
        made[key].hide_render = True
    return [made[k] for k in sorted(made)]


def hidden_pieces(root_collection) -> list:
    """The mesh objects of the import's LOD/group collections in a model's collection."""
    found = []
    for coll in root_collection.children_recursive:
        if COLLECTION_PROP in coll:
            found.extend(o for o in coll.objects if piece_of(o) is not None)
    return found


class ShownAsExported:
    """For the time of a glTF export of a model's collection: its hidden
    pieces at scale 0 again, and it and its collections (the LOD/group ones
    the import hid, any the user hid) shown, so that the exporter sees and
    Blender evaluates (animates) every object; afterwards as they were.
    Without a model's collection (`view_layer` None, the scene's collection
    given) only the LOD/group collections are shown."""

    def __init__(self, root_collection, view_layer=None):
        self.root = root_collection
        self.view_layer = view_layer
        self.pieces = []
        self.collections = []
        self.layers = []

    def __enter__(self):
        shown = [self.root, *self.root.children_recursive]
        if self.view_layer is None:
            shown = [c for c in self.root.children_recursive if COLLECTION_PROP in c]
        for coll in shown:
            self.collections.append((coll, coll.hide_viewport, coll.hide_render))
            coll.hide_viewport = False
        layers = self.view_layer.layer_collection if self.view_layer is not None else None
        for layer in layer_collections(layers, set(shown)) if layers is not None else []:
            self.layers.append((layer, layer.exclude, layer.hide_viewport))
            layer.exclude, layer.hide_viewport = False, False
        for obj in hidden_pieces(self.root):
            self.pieces.append((obj, tuple(obj.scale)))
            obj.scale = (0.0, 0.0, 0.0)
        return self

    def __exit__(self, *exc):
        for obj, scale in self.pieces:
            obj.scale = scale
        for layer, exclude, hidden in self.layers:
            layer.exclude, layer.hide_viewport = exclude, hidden
        for coll, viewport, render in self.collections:
            coll.hide_viewport, coll.hide_render = viewport, render
        return False


def layer_collections(layer, collections) -> list:
    """The view layer's entries (under `layer`) of `collections`."""
    found = [layer] if layer.collection in collections else []
    for child in layer.children:
        found.extend(layer_collections(child, collections))
    return found
