"""The add-on's own report codes (the library's come with its errors and
notes), each defined once; the tests check that docs/BLENDER.md lists them."""

import errno

CODES = {
    "addon.left_out": "objects of the scene that are not the exported model's, left out of the export",
    "addon.which_model": "the export cannot tell which imported model to write",
    "addon.gltf_failed": "Blender's glTF importer or exporter did not finish",
}
"""Code -> what it says."""

IO_CODES = {
    errno.ENOENT: "io.not_found",
    errno.EACCES: "io.permission_denied",
    errno.EPERM: "io.permission_denied",
    errno.EISDIR: "io.is_a_directory",
    errno.ENOTDIR: "io.not_a_directory",
    errno.EEXIST: "io.already_exists",
    errno.ENOSPC: "io.no_space",
}
"""A file error's code, as the library names it (`io.error` otherwise)."""


class Refused(Exception):
    """An operation the add-on refuses: a report with its `code`."""

    def __init__(self, code: str, message: str):
        assert code in CODES, code
        super().__init__(message)
        self.code = code


def io_code(e: OSError) -> str:
    """The library's code of a file error."""
    return IO_CODES.get(e.errno, "io.error")
