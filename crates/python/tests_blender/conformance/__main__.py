"""Prints docs/FRONT_ENDS.md's table (python -m conformance, from crates/python/tests_blender)."""

from .doc import table

print(table(), end="")
