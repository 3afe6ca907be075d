"""The scenarios: one row each, run through every front end.

A row is a dict:

- ``id``, ``title``: its name and what a user does.
- ``source``: the entry of the fixture folder's ``units.rlb`` the user
  exported (with the game folder's look), or imported into Blender.
- ``format``: what the export is (``glb``, or ``obj``; the add-on always
  goes through Blender).
- ``edit``: ``None``, or ``("repaint", IMAGE, RGBA)``: the image painted one
  colour (in the GLB by the tests' own writer, in Blender by its pixels).
- ``before``: steps on the row's folder before the export (harness.STEPS).
- ``between``: steps after the export, before the put.
- ``put``: where the model goes: ``path`` (relative to the row's folder),
  ``entry``, ``add``.
- ``game_dir``: ``None`` (none given), ``"option"`` (``--game-dir``,
  ``game_dir=``, the export's option), ``"setting"`` (``MSHCONV_GAME_DIR``,
  the add-on's preference, the service's ``--game-dir``) or ``"empty"``
  (an empty folder given as the option).
- ``expect``: ``error`` (a code, or ``None`` for success), ``codes`` (the
  exact set of note codes said), ``changed`` (the files whose bytes change;
  backups ``*.bak`` only where the front end writes the disk) and
  ``checks`` (oracles independent of mshconv: harness.CHECKS).
- ``not_applicable``: front end -> why the row cannot be asked of it.
- ``xfail``: front end -> the known divergence (a bug of issue 39).
"""

FRONT_ENDS = ("cli", "service", "python", "addon")
"""The front ends, each run by a runner of frontends.py."""

PLACEMENT = ("archive.replaced", "archive.added")
"""The CLI's notes saying where a model went; the others say it by their
answer (Python's ``Archive.put(...).placed``, the service's
``x-mshconv-placed``, the add-on's "written" report): not compared."""

BACKUP = "look.backup"
"""Said where a library is backed up before it is replaced: the front ends
that write the user's disk (the service answers the files, no backups)."""

KEPT = "import.original_kept"
"""Said when a glTF that is not byte for byte mshconv's export is recognised
as the model unedited (its original bytes written): what Blender's glTF
export always gives the add-on, and the suite's own file only once repainted.
It tells how the input was read, not what the front end did: the add-on's
rows that write say it too."""

TANK = "game/units.rlb"

REPAINTED = ["import.original_kept", "look.backup", "look.entry", "look.texture_replaced"]
"""What a repaint written into the game folder says: the model kept, the
library backed up, the entry replaced and how."""



def repainted(image, *codes, also=()):
    """What a repaint of `image` written into the game folder comes to:
    REPAINTED's codes and `codes`, Textures.lib changed (that entry only)
    after its backup, and the checks `also`."""
    return dict(
        error=None,
        codes=REPAINTED + list(codes),
        changed=["game/Textures.lib", "game/Textures.lib.bak"],
        checks=[
            ("only_entries_changed", "game/Textures.lib", [image]),
            ("backup_is_original", "game/Textures.lib"),
            *also,
        ],
    )


MAGENTA = (255, 0, 255, 255)
GREY = (128, 128, 128, 255)

NO_DISK = "the service writes nothing on the user's disk: it answers the archive uploaded to it, edited"
NO_PATH = "the service takes bytes, not a path: no link, folder or permission of the user's reaches it"
NO_SCENE = "no Blender scene: the front end takes one model file"
NO_OBJ = "the add-on writes what Blender holds, as glTF; an OBJ is not its input"
NO_SETTING = "the Python package has no stored setting: game_dir= is the call's own (the option's row)"

SCENARIOS = [
    dict(
        id="unedited",
        title="An unedited export put back with the game folder",
        source="TANK.MSH",
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=dict(error=None, codes=[], changed=[], checks=[("entry_is_original", TANK, "TANK.MSH")]),
    ),
    dict(
        id="repaint",
        title="A repainted texture with the game folder",
        source="TANK.MSH",
        edit=("repaint", "GLASS_4444", MAGENTA),
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=repainted("GLASS_4444", also=[("entry_is_original", TANK, "TANK.MSH")]),
    ),
    dict(
        id="repaint_no_game_dir",
        title="A repainted texture without a game folder",
        source="TANK.MSH",
        edit=("repaint", "GLASS_4444", MAGENTA),
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir=None,
        expect=dict(error=None, codes=["import.original_kept", "look.not_written"], changed=[], checks=[]),
    ),
    dict(
        id="repaint_setting",
        title="A repainted texture, the game folder from the setting (the add-on's preference)",
        source="TANK.MSH",
        edit=("repaint", "GLASS_4444", MAGENTA),
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="setting",
        expect=repainted("GLASS_4444", also=[("entry_is_original", TANK, "TANK.MSH")]),
        not_applicable=dict(python=NO_SETTING),
    ),
    dict(
        id="shared_texture",
        title="A repainted texture other models show too",
        source="TANK.MSH",
        edit=("repaint", "TANK_BODY.0", MAGENTA),
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=repainted("TANK_BODY.0", "look.shared_edit"),
    ),
    dict(
        id="typo_entry",
        title="An entry name the archive lacks (a typo)",
        source="TANK.MSH",
        put=dict(path=TANK, entry="TANKK.MSH"),
        game_dir="option",
        expect=dict(error="archive.no_such_entry", codes=[], changed=[], checks=[]),
    ),
    dict(
        id="add",
        title="A new entry with --add",
        source="TANK.MSH",
        put=dict(path=TANK, entry="COPY.MSH", add=True),
        game_dir="option",
        expect=dict(
            error=None,
            codes=[],
            changed=[TANK],
            checks=[
                ("only_entries_changed", TANK, ["COPY.MSH", "COPY.WEA"]),
                ("entry_is_original", TANK, "TANK.MSH"),
                ("entry_equals", TANK, "COPY.MSH", "TANK.MSH"),
            ],
        ),
    ),
    dict(
        id="obj_over_rigged",
        title="An OBJ over an animated model",
        before=[("walker_added",)],
        source="WALKER.MSH",
        format="obj",
        put=dict(path=TANK, entry="WALKER.MSH"),
        game_dir=None,
        expect=dict(
            error=None,
            codes=["archive.entry_loses"],
            changed=[TANK],
            checks=[
                ("only_entries_changed", TANK, ["WALKER.MSH"]),
            ],
        ),
        not_applicable=dict(addon=NO_OBJ),
    ),
    dict(
        id="read_only",
        title="A read-only archive",
        source="TANK.MSH",
        between=[("read_only", TANK)],
        put=dict(path=TANK, entry="COPY.MSH", add=True),
        game_dir="option",
        expect=dict(error="io.read_only", codes=[], changed=[], checks=[]),
        not_applicable=dict(service=NO_PATH),
    ),
    dict(
        id="symlinked",
        title="An archive that is a symbolic link",
        before=[("symlinked", TANK, "store/units.rlb")],
        source="TANK.MSH",
        put=dict(path=TANK, entry="COPY.MSH", add=True),
        game_dir="option",
        expect=dict(
            error=None,
            codes=[],
            changed=["store/units.rlb"],
            checks=[
                ("is_link", TANK),
                ("only_entries_changed", "store/units.rlb", ["COPY.MSH", "COPY.WEA"]),
                ("entry_equals", "store/units.rlb", "COPY.MSH", "TANK.MSH")],
        ),
        not_applicable=dict(service=NO_PATH),
    ),
    dict(
        id="folder_for_archive",
        title="A folder given where an archive is expected",
        source="TANK.MSH",
        put=dict(path="game", entry="TANK.MSH"),
        game_dir="option",
        expect=dict(error="archive.is_folder", codes=[], changed=[], checks=[]),
        not_applicable=dict(service=NO_PATH),
    ),
    dict(
        id="interrupted",
        title="A write interrupted in the game folder, finished before the put",
        source="TANK.MSH",
        between=[("interrupted", TANK)],
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=dict(
            error=None,
            codes=["txn.rolled_back"],
            changed=[],
            checks=[("no_journal", "game"), ("lacks_entry", TANK, "NEW.MSH")],
        ),
    ),
    dict(
        id="two_writers",
        title="Another mshconv writing the archive at the same time",
        source="TANK.MSH",
        between=[("writer_waiting", TANK)],
        put=dict(path=TANK, entry="FRONT.MSH", add=True),
        game_dir="option",
        expect=dict(
            error=None,
            codes=[],
            changed=[TANK],
            checks=[
                ("only_entries_changed", TANK, ["NEW.MSH", "FRONT.MSH", "FRONT.WEA"]),
                ("entry_equals", TANK, "FRONT.MSH", "TANK.MSH"),
                ("has_entry", TANK, "NEW.MSH"),
            ],
        ),
        not_applicable=dict(service=NO_DISK),
    ),
    dict(
        id="empty_game_dir",
        title="An empty folder given as the game folder",
        source="TANK.MSH",
        edit=("repaint", "GLASS_4444", MAGENTA),
        before=[("empty_folder", "empty")],
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="empty",
        expect=dict(error="game_dir.no_libraries", codes=[], changed=[], checks=[]),
    ),
    dict(
        id="palette_repaint",
        title="Colours painted into a palette texture",
        source="TANK.MSH",
        edit=("repaint", "PAL_CAMO", GREY),
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=repainted("PAL_CAMO", "look.palette_reduced"),
    ),
    dict(
        id="older_export",
        title="An older export put back after another model's repaint of a shared texture",
        source="TANK.MSH",
        between=[("library_edit",)],
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=dict(error=None, codes=["look.library_kept"], changed=[], checks=[]),
    ),
    dict(
        id="scene_with_others",
        title="A Blender scene holding other objects and another model",
        before=[("scene_with_others",)],
        source="TANK.MSH",
        put=dict(path=TANK, entry="TANK.MSH"),
        game_dir="option",
        expect=dict(
            error=None,
            codes=["addon.left_out"],
            changed=[],
            checks=[
                ("entry_is_original", TANK, "TANK.MSH"),
            ],
        ),
        not_applicable=dict(cli=NO_SCENE, service=NO_SCENE, python=NO_SCENE),
    ),
]


def row(scenario_id: str) -> dict:
    """The row named `scenario_id`."""
    return next(s for s in SCENARIOS if s["id"] == scenario_id)


def cells():
    """Every (row, front end) pair with its kind: ``run``, ``n/a`` or ``xfail``, and the reason."""
    for s in SCENARIOS:
        for fe in FRONT_ENDS:
            if fe in s.get("not_applicable", {}):
                yield s, fe, "n/a", s["not_applicable"][fe]
            elif fe in s.get("xfail", {}):
                yield s, fe, "xfail", s["xfail"][fe]
            else:
                yield s, fe, "run", ""
