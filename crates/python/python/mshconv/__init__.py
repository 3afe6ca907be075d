"""Parkan's .msh models from Python: the converter of the mshconv CLI as a library.

- ``convert(data, to, *, source=None, name="model", game_dir=None, **options)``:
  a model's bytes to ``msh``, ``glb``, ``gltf``, ``obj`` or ``usda``; the
  options are the CLI's (``lod``, ``group``, ``fps``, ``axis``, ``rotation``,
  ``animation``, ``clips``: ``OPTION_NAMES``, read from the option table).
- ``convert_entry(archive, entry, to, *, game_dir=None, **options)``: one
  model of an archive, its WEAR the sibling entry, as ``mshconv convert
  ARCHIVE:ENTRY OUT --game-dir DIR``.
- ``Archive(path)``: an archive of models (``.rlb``), a mapping of entry
  names to payloads (``in``, ``len``, iteration, ``archive[name]``) and a
  context manager: ``entries()``, ``read(name)``, ``convert(entry, to, ...)``,
  ``put(name, data, add=False)`` (a ``PutOutcome``: ``placed`` and the
  notes), ``remove(name)``; edits are written as the CLI writes them (locked,
  atomic, durable), and an interrupted write is finished before a read (its
  notes logged on the ``logging`` logger ``mshconv``).
- ``validate(data)``: strict validation of a model, with every finding.
- ``write_model(data, path, *, entry=None, add=False, game_dir=None, dry_run=False)``:
  a model into a ``.msh`` file or an archive entry, its look (textures,
  materials, WEAR) into the game folder: ``mshconv convert IN OUT --game-dir
  DIR``; with ``dry_run=True`` a ``DryRun`` of the files it would write.
- ``Error`` (a ``ValueError``): ``.code`` is the code the CLI prints.

The work runs with the GIL released: threads convert in parallel.
"""

from ._mshconv import (
    Archive,
    DryRun,
    Entry,
    Error,
    Finding,
    Note,
    OPTION_NAMES,
    Output,
    PlannedFile,
    PutOutcome,
    Report,
    __version__,
    convert,
    convert_entry,
    validate,
    write_model,
)

__all__ = [
    "Archive",
    "DryRun",
    "Entry",
    "Error",
    "Finding",
    "Note",
    "OPTION_NAMES",
    "Output",
    "PlannedFile",
    "PutOutcome",
    "Report",
    "__version__",
    "convert",
    "convert_entry",
    "validate",
    "write_model",
]
