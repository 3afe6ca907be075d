"""Type stubs of the native module (crates/python/src)."""

from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import Literal, TypedDict, TypeVar, overload

from typing_extensions import Unpack

__version__: str

OPTION_NAMES: tuple[str, ...]
"""The conversion options' keywords, read from the option table, in its order."""

_T = TypeVar("_T")
_Self = TypeVar("_Self", bound="Archive")

class _Options(TypedDict, total=False):
    """The conversion options (the option table's rows: ``OPTION_NAMES``)."""

    lod: int | str
    group: int | str
    fps: float | str
    axis: str
    rotation: str
    animation: int | str
    clips: str
    embed_original: bool | str

class Error(ValueError):
    """A failure: ``code`` is the stable code the CLI prints (``error[CODE]``)."""

    code: str

class Note:
    """What a conversion noted (the CLI's ``note[CODE]: message`` lines)."""

    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...

class Output:
    """What a conversion made."""

    @property
    def files(self) -> dict[str, bytes]:
        """File name -> bytes: the main file first (``name`` + extension), then side files."""
    @property
    def notes(self) -> list[Note]: ...

def convert(
    data: bytes,
    to: str,
    *,
    source: str | None = None,
    name: str = "model",
    game_dir: str | PathLike[str] | None = None,
    wear: bytes | None = None,
    original: bytes | None = None,
    **options: Unpack[_Options],
) -> Output:
    """Converts a model's bytes to ``to`` (``msh``, ``glb``, ``gltf``, ``obj``, ``usda``).

    ``source`` is the input's format (told from the bytes when omitted);
    ``game_dir`` the game folder whose libraries give an export its
    materials and textures, ``wear`` the model's material list (its
    ``NAME.wea``) for it. ``original``: for a glTF going back to MSH, the
    model it was exported from (the CLI's ``--original``): another tool's
    rewrite is recognised against it, its unedited parts kept byte for
    byte. Raises ``Error`` with the CLI's code.
    """

def convert_entry(
    archive: str | PathLike[str],
    entry: str,
    to: str,
    *,
    game_dir: str | PathLike[str] | None = None,
    **options: Unpack[_Options],
) -> Output:
    """Converts the model ``entry`` of the archive file ``archive`` to ``to``:
    ``mshconv convert ARCHIVE:ENTRY OUT --game-dir DIR``. With ``game_dir``,
    the model's WEAR is its sibling entry (``TANK.WEA`` beside ``TANK.MSH``).
    The files are named after the entry (``TANK.glb``)."""

class Entry:
    """One directory entry of an archive."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str:
        """The type as text (``MSH``, ``WEAR``), or the number where not printable."""
    @property
    def size(self) -> int: ...
    @property
    def offset(self) -> int:
        """The payload's offset in the file: ``file[offset:offset + size]`` is ``read(name)``."""

class PutOutcome:
    """What ``Archive.put`` did."""

    @property
    def placed(self) -> Literal["replaced", "added"]: ...
    @property
    def notes(self) -> list[Note]:
        """The notes of the put (``archive.entry_loses``: what the replaced entry loses)."""

class Archive:
    """An NRes archive file (``units.rlb``), read on every call, once an
    interrupted write in its folder is finished (its notes logged as warnings
    on the ``logging`` logger ``mshconv``): a mapping of entry names (compared
    as the game compares them) to payloads, and a context manager (nothing is
    held open)."""

    def __init__(self, path: str | PathLike[str]) -> None: ...
    @property
    def path(self) -> Path: ...
    def entries(self) -> list[Entry]: ...
    def read(self, name: str) -> bytes:
        """The entry's payload, byte for byte (names compared as the game does)."""
    def put(self, name: str, data: bytes, add: bool = False) -> PutOutcome:
        """Puts a model (``.msh`` as it is, glTF/GLB/OBJ converted) under ``name``;
        an archive whose entries share bytes is refused (``archive.entries_overlap``)."""
    def remove(self, name: str) -> None:
        """Removes the entry ``name``; an archive whose entries share bytes is
        refused (``archive.entries_overlap``)."""
    def convert(
        self,
        entry: str,
        to: str,
        *,
        game_dir: str | PathLike[str] | None = None,
        **options: Unpack[_Options],
    ) -> Output:
        """``convert_entry(self.path, entry, to, ...)``: the model with its WEAR."""
    def keys(self) -> list[str]:
        """The entries' names, in directory order."""
    def values(self) -> list[bytes]: ...
    def items(self) -> list[tuple[str, bytes]]: ...
    @overload
    def get(self, name: str) -> bytes | None: ...
    @overload
    def get(self, name: str, default: _T) -> bytes | _T: ...
    def __getitem__(self, name: str) -> bytes:
        """The payload; ``KeyError`` when there is no such entry."""
    def __contains__(self, name: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __enter__(self: _Self) -> _Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]: ...

class Finding:
    """One finding of a validation."""

    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> Literal["info", "warning", "error"]: ...
    @property
    def path(self) -> str:
        """Where in the model: ``Res13[4].index_start``."""
    @property
    def offset(self) -> int | None: ...
    @property
    def message(self) -> str: ...

class Report:
    """The result of validating one model."""

    @property
    def valid(self) -> bool: ...
    @property
    def kind(
        self,
    ) -> Literal["standard", "legacy_nodes", "terrain", "materials", "textures"] | None: ...
    @property
    def findings(self) -> list[Finding]: ...

def validate(data: bytes) -> Report:
    """Validates a model's bytes strictly; damage becomes findings. A game
    library (``Material.lib``, ``Textures.lib``) is checked by its MAT0 or
    Texm entries (``kind`` ``"materials"`` or ``"textures"``; a finding per
    entry that does not parse, its ``path`` the entry)."""

class PlannedFile:
    """One file a write writes, or would write (``write_model(..., dry_run=True)``)."""

    @property
    def path(self) -> str: ...
    @property
    def size(self) -> int:
        """The size of the bytes written."""
    @property
    def change(self) -> Literal["new", "changed", "unchanged", "backup"]:
        """``unchanged``: the same bytes written again; ``backup``: a library's first backup."""

class DryRun:
    """What ``write_model(..., dry_run=True)`` would do; nothing was written."""

    @property
    def files(self) -> list[PlannedFile]: ...
    @property
    def notes(self) -> list[Note]: ...

@overload
def write_model(
    data: bytes,
    path: str | PathLike[str],
    *,
    entry: str | None = None,
    add: bool = False,
    game_dir: str | PathLike[str] | None = None,
    dry_run: Literal[False] = False,
    original: bytes | None = None,
) -> list[Note]: ...
@overload
def write_model(
    data: bytes,
    path: str | PathLike[str],
    *,
    entry: str | None = None,
    add: bool = False,
    game_dir: str | PathLike[str] | None = None,
    dry_run: Literal[True],
    original: bytes | None = None,
) -> DryRun: ...
def write_model(
    data: bytes,
    path: str | PathLike[str],
    *,
    entry: str | None = None,
    add: bool = False,
    game_dir: str | PathLike[str] | None = None,
    dry_run: bool = False,
    original: bytes | None = None,
) -> list[Note] | DryRun:
    """Writes a model (``.msh`` as it is, glTF/GLB/OBJ converted) to ``path``,
    or into its archive entry ``entry`` (added only with ``add``); with
    ``game_dir``, a glTF's or OBJ's look goes into the game folder's
    libraries (backed up the first time) and the model's WEAR, in one
    transaction: ``mshconv convert IN OUT[:ENTRY] --game-dir DIR``. Returns
    the notes; with ``dry_run=True``, a ``DryRun`` of the files it would
    write (``mshconv convert ... --dry-run``), writing nothing. A glTF is
    recognised against ``original`` (the model it was exported from),
    by default the model it replaces."""
