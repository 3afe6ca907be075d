"""The soak: every model of `gen-fixtures wild` folders through real Blender
both ways (wild_trip.py), one line each (scripts/soak-blender.sh).

Usage: python soak.py PRISTINE WORK MSHCONV [FOLDER...]
PRISTINE holds the folders and wild.json; WORK is scratch; MSHCONV the CLI.
Each line: `PASS`/`FAIL`, the seed, folder and model, the way; for a failure
its class, the differences (which file, archive entry, model resource
changed) and the notes of the way back. FOLDER names limit the run.
"""
import json
import pathlib
import sys

import bpy_main
import wild_trip


def main():
    pristine, work, binary = sys.argv[1:4]
    only = set(sys.argv[4:])
    folders = json.loads((pathlib.Path(pristine) / "wild.json").read_text())
    for f in folders:
        if only and f["dir"] not in only:
            continue
        for model in f["models"]:
            for way in ("addon", "gltf"):
                diff, notes = wild_trip.trip(pristine, work, f, model, way, binary)
                line = f"seed={f['seed']} folder={f['index']} ({f['dir']}) model={wild_trip.label(model)} way={way}"
                if diff:
                    line = (f"FAIL {line} class={wild_trip.failure_class(diff, notes)} | "
                            + "; ".join(diff[:6]) + " | notes: " + ",".join(notes))
                else:
                    line = f"PASS {line}"
                print(line, flush=True)


bpy_main.run(main)
