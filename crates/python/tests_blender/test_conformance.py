"""Issue 39's conformance suite: every scenario of conformance/scenarios.py
through the CLI, the service on loopback, the Python package and the add-on
(installed as an extension in real Blender 4.2, its preference set), with
the same expected files and the same codes. Needs MSHCONV_CLI,
MSHCONV_SERVER and MSHCONV_EXTENSION_ZIP (scripts/test-python.sh gives them)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from conformance import frontends, harness, scenarios
from conformance.doc import table
from conformance.scenarios import FRONT_ENDS, SCENARIOS, cells, row

ROOT = harness.ROOT
NEEDS = ("MSHCONV_CLI", "MSHCONV_SERVER", "MSHCONV_EXTENSION_ZIP")
needs = pytest.mark.skipif(
    not all(os.environ.get(v) for v in NEEDS), reason="give " + ", ".join(NEEDS) + " (scripts/test-python.sh)"
)
RUN = [(s, fe, kind, why) for s, fe, kind, why in cells() if kind != "n/a"]


class Outcomes:
    """Each (row, front end)'s outcome, run once; the add-on's rows in one Blender process."""

    def __init__(self, work: pathlib.Path):
        self.work = work
        self.runners = dict(
            cli=frontends.Cli(), python=frontends.Python(), service=frontends.Service(os.environ.get("MSHCONV_SERVER"))
        )
        self.done = {}
        self.addon = None

    def get(self, scenario_id, front_end):
        if front_end == "addon":
            return self.addon_outcomes()[scenario_id]
        key = (scenario_id, front_end)
        if key not in self.done:
            work = self.work / f"{scenario_id}-{front_end}"
            self.done[key] = harness.run(row(scenario_id), work, self.runners[front_end])
        return self.done[key]

    def addon_outcomes(self):
        if self.addon is None:
            jobs = [(s["id"], str(self.work / f"{s['id']}-addon")) for s, fe, _, _ in RUN if fe == "addon"]
            (self.work / "addon-jobs.json").write_text(json.dumps(jobs))
            results = self.work / "addon-results.json"
            env = dict(os.environ, BLENDER_USER_RESOURCES=str(self.work / "blender-user"))
            # Not the wheel this session imports: the extension brings its own.
            env.pop("PYTHONPATH", None)
            worker = pathlib.Path(__file__).parent / "conformance" / "addon_worker.py"
            zip_path, jobs_path = os.environ["MSHCONV_EXTENSION_ZIP"], self.work / "addon-jobs.json"
            run = subprocess.run(
                [sys.executable, str(worker), zip_path, str(jobs_path), str(results)],
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert "ADDON_WORKER_DONE" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
            self.addon = json.loads(results.read_text())
        return self.addon


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    return Outcomes(tmp_path_factory.mktemp("conformance"))


def expected_changed(scenario, front_end):
    """The files a row changes; the service keeps no backups (it answers files)."""
    changed = scenario["expect"]["changed"]
    return sorted(p for p in changed if not (front_end == "service" and p.endswith(".bak")))


def xfail(kind, why):
    """A known divergence fails the suite once fixed (strict), so the table is updated."""
    return [pytest.mark.xfail(strict=True, reason=why)] if kind == "xfail" else []


def expected_codes(scenario, front_end):
    """The codes a row says; the service keeps no backups, so says no
    look.backup; the add-on's model comes from Blender's glTF export, so
    says import.original_kept when it is written (scenarios.KEPT)."""
    codes = set(scenario["expect"]["codes"])
    if front_end == "service":
        codes.discard(scenarios.BACKUP)
    if front_end == "addon" and scenario["expect"]["error"] is None:
        codes.add(scenarios.KEPT)
    return sorted(codes)


@needs
@pytest.mark.parametrize(
    ("scenario", "front_end"),
    [
        pytest.param(s, fe, id=f"{s['id']}-{fe}", marks=xfail(kind, why))
        for s, fe, kind, why in RUN
    ],
)
def test_a_front_end_does_what_the_row_says(outcomes, scenario, front_end):
    got = outcomes.get(scenario["id"], front_end)
    assert "crashed" not in got, got.get("crashed")
    expect = scenario["expect"]
    said = got["said"]
    assert got["error"] == expect["error"], said
    assert got["codes"] == expected_codes(scenario, front_end), said
    assert sorted(got["changed"]) == expected_changed(scenario, front_end), (got["changed"], said)
    failed = [c for c in got["checks"] if c[-1] is not True]
    assert failed == [], said


@needs
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s["id"])
def test_the_front_ends_write_the_same_bytes(outcomes, scenario):
    """The files changed hold the same bytes whichever front end wrote them (backups aside)."""
    ran = [fe for s, fe, kind, _ in RUN if s is scenario and kind == "run"]
    written = {}
    for fe in ran:
        got = outcomes.get(scenario["id"], fe)
        assert "crashed" not in got, (fe, got["crashed"])
        written[fe] = {p: h for p, h in got["changed"].items() if not p.endswith(".bak")}
    assert len(written) == len(ran)
    assert len({json.dumps(w, sort_keys=True) for w in written.values()}) <= 1, written


def test_every_front_end_and_scenario_is_run_or_said_not_to_apply(capsys):
    """No (row, front end) is left out silently: each one runs, or says why not."""
    not_applicable = [(s["id"], fe, why) for s, fe, kind, why in cells() if kind == "n/a"]
    with capsys.disabled():
        print("\nconformance: not applicable (scenario, front end, why):")
        for item in not_applicable:
            print("  %s / %s: %s" % item)
    assert all(why for _, _, why in not_applicable)
    assert {fe for s in SCENARIOS for fe in s.get("not_applicable", {})} <= set(FRONT_ENDS)
    assert len(RUN) + len(not_applicable) == len(SCENARIOS) * len(FRONT_ENDS)


def test_the_docs_table_is_the_scenarios():
    """docs/FRONT_ENDS.md holds the table written from the scenarios (python -m conformance)."""
    assert table() in (ROOT / "docs" / "FRONT_ENDS.md").read_text()
