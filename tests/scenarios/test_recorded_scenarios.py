"""Scenarios in kubelite's three modes.

Recorded scenarios (tests/data/scenarios/*.yaml with expected/NAME.json, what kubectl v1.32
printed against kube-apiserver 1.32.13) are replayed embedded, with kubelite against `kubelite
serve`, and with /usr/bin/kubectl against `kubelite serve`; every step must compare green with
scenario.py's own comparison.

Our own scenarios (tests/data/scenarios/own/*.yaml, the seeds' walkthroughs) have no recording:
real kubectl against `kubelite serve` is the reference, and kubelite (served and embedded) must
print the same per step under the same comparison.

One test per step, so a step that differs for a documented reason is marked expected-different
(strict xfail) on its own and the rest of its scenario still counts. Each scenario runs all its
modes once, concurrently, each on a fresh cluster.
"""
from __future__ import annotations

import json
import os

import pytest

from scenario_modes import (KUBECTL, MODES, explain, load, own_scenarios, recorded_scenarios, run_modes,
                            same_as_kubectl, same_as_recording, DATA)

HAVE_KUBECTL = os.path.exists(KUBECTL)

# (scenario, mode, step) -> why that step cannot compare equal. Strict: a listed step that
# starts passing fails the run, so the list never outlives the difference.
EXPECTED_DIFFERENT: dict[tuple[str, str, int], str] = {}


def _modes(needs_kubectl: bool) -> tuple[str, ...]:
    if HAVE_KUBECTL:
        return MODES
    return () if needs_kubectl else tuple(m for m in MODES if m != "served-kubectl")


@pytest.fixture(scope="module")
def runs():
    """scenario path -> {mode: result}; each scenario is replayed at most once per module."""
    cache: dict = {}

    def get(path, needs_kubectl):
        if path not in cache:
            cache[path] = run_modes(path, _modes(needs_kubectl))
        return cache[path]

    return get


def _params(paths, modes, kubectl_for):
    out = []
    for path in paths:
        name = load(path)["name"]
        for mode in modes:
            for i, step in enumerate(load(path)["steps"]):
                marks = []
                if kubectl_for(mode):
                    marks.append(pytest.mark.kubectl)
                    marks.append(pytest.mark.skipif(not HAVE_KUBECTL, reason="needs /usr/bin/kubectl"))
                reason = EXPECTED_DIFFERENT.get((name, mode, i))
                if reason:
                    marks.append(pytest.mark.xfail(reason=reason, strict=True))
                out.append(pytest.param(path, mode, i, marks=marks, id=f"{name}-{mode}-{i:02d}"))
    return out


@pytest.mark.parametrize("path,mode,i", _params(recorded_scenarios(), MODES, lambda m: m == "served-kubectl"))
def test_recorded_step(runs, path, mode, i):
    expected = json.loads((DATA / "expected" / f"{path.stem}.json").read_text())
    got = runs(path, needs_kubectl=False)[mode]
    assert len(got["steps"]) == len(expected["steps"])
    want, step = expected["steps"][i], got["steps"][i]
    good, why = same_as_recording(want, step)
    assert good, f"{why}\n{explain(want, step)}"


@pytest.mark.parametrize("path,mode,i", _params(own_scenarios(), ("embedded", "served-kubelite"), lambda m: True))
def test_own_step_as_kubectl(runs, path, mode, i):
    result = runs(path, needs_kubectl=True)
    reference, step = result["served-kubectl"]["steps"][i], result[mode]["steps"][i]
    good, why = same_as_kubectl(reference, step)
    assert good, f"{why}\n{explain(reference, step)}"


@pytest.mark.kubectl
@pytest.mark.skipif(not HAVE_KUBECTL, reason="needs /usr/bin/kubectl")
@pytest.mark.parametrize("path", own_scenarios(), ids=lambda p: p.stem)
def test_own_scenario_reference_is_meaningful(runs, path):
    """kubectl's own run must have done the walkthrough: a scenario whose reference run failed
    at a step meant to succeed would make every comparison vacuous."""
    scen = load(path)
    reference = runs(path, needs_kubectl=True)["served-kubectl"]["steps"]
    expected_rc = [step.get("rc", 0) for step in scen["steps"]]
    got_rc = [0 if step["rc"] == 0 else 1 for step in reference]
    assert got_rc == [0 if rc == 0 else 1 for rc in expected_rc], [s["run"] for s in reference]
