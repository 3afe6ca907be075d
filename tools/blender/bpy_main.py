"""Runs a Blender script's main() and leaves the way the bpy module needs.

The bpy module sometimes crashes at interpreter exit, so a script ends with
os._exit after flushing its output: 0 when main() returned, 1 (with the
traceback) when anything was raised.
"""
import os
import sys


def run(main):
    status = 0
    try:
        main()
    except BaseException:  # noqa: BLE001 - report anything, then exit non-zero
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
