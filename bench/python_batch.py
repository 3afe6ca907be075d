"""The batch from Python against the CLI's: every model of a corpus to GLB.

    python bench/python_batch.py CORPUS --cli target/release/mshconv [--jobs 2] [--runs 3]

CORPUS is a generated corpus (`gen-fixtures full --out CORPUS`, as
bench/run.sh makes it). The Python batch walks it as `mshconv batch` does
(every `.msh` file, and every model entry of every `.rlb`), converts each
model with `mshconv.convert` on a thread pool of `--jobs` threads (the GIL is
released during a conversion) and writes each GLB through a temporary file
and a rename, as the CLI does. The CLI's `mshconv batch CORPUS --to glb
--out OUT --jobs N --quiet` runs on the same corpus; both are timed best of
`--runs`, and one Markdown table row per job count is printed (bench/RESULTS.md).
A model that fails (the corpus has damaged files) fails in both.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import mshconv


def tasks(corpus: pathlib.Path):
    """(output path relative to OUT, a function giving the model's bytes), in the CLI's names."""
    for path in sorted(corpus.rglob("*")):
        suffix = path.suffix.lower()
        rel = path.relative_to(corpus)
        if suffix == ".msh":
            yield rel.with_suffix(".glb"), path.read_bytes
        elif suffix == ".rlb":
            archive = mshconv.Archive(path)
            try:
                entries = archive.entries()
            except mshconv.Error:
                continue
            # The archive read once, its models sliced by the directory's offsets.
            whole = path.read_bytes()
            for e in entries:
                if e.name.lower().endswith(".msh"):
                    yield rel.with_suffix("") / (e.name[:-4] + ".glb"), (
                        lambda w=whole, e=e: w[e.offset : e.offset + e.size]
                    )


def write_atomically(path: pathlib.Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def python_batch(corpus: pathlib.Path, out: pathlib.Path, jobs: int) -> tuple[int, int]:
    work = list(tasks(corpus))
    for folder in {out / rel.parent for rel, _ in work}:
        folder.mkdir(parents=True, exist_ok=True)

    def one(task) -> bool:
        rel, read = task
        try:
            glb = mshconv.convert(read(), "glb", name=rel.stem).files[rel.stem + ".glb"]
        except mshconv.Error:
            return False
        write_atomically(out / rel, glb)
        return True

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = sum(pool.map(one, work))
    return done, len(work)


def best_of(runs: int, out: pathlib.Path, run) -> float:
    best = float("inf")
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=pathlib.Path)
    parser.add_argument("--cli", type=pathlib.Path, required=True, help="the mshconv binary")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    base = pathlib.Path(tempfile.mkdtemp(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None))
    try:
        out = base / "out"
        print("| jobs | models converted (of tasks) | CLI `batch` s | Python s | Python / CLI |")
        print("|---|---|---|---|---|")
        for jobs in args.jobs:
            counts = []
            py = best_of(args.runs, out, lambda: counts.append(python_batch(args.corpus, out, jobs)))
            py_files = sum(1 for _ in out.rglob("*.glb"))
            cli_cmd = [str(args.cli), "batch", str(args.corpus), "--to", "glb", "--out", str(out), "--jobs", str(jobs), "--quiet"]
            cli = best_of(args.runs, out, lambda: subprocess.run(cli_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            cli_files = sum(1 for _ in out.rglob("*.glb"))
            if py_files != cli_files:
                print(f"the Python batch wrote {py_files} GLBs, the CLI {cli_files}", file=sys.stderr)
                return 1
            done, total = counts[-1]
            print(f"| {jobs} | {done} ({total}) | {cli:.3f} | {py:.3f} | {py / cli:.2f} |")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
