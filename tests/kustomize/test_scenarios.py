"""Hand-written trees (scenarios.py) for the failures issue 7 lists, against what
`kubectl kustomize` printed for them (recorded by record_scenarios.py): the same
YAML, or the same klog error text word for word."""
from __future__ import annotations

import os

import pytest

from kubelite.cli.kustomize import klog_command_failed
from kubelite.kustomize import KustomizeError, build, render

from .cases import build_options

ROOT = os.path.join(os.path.dirname(__file__), "..", "data", "kustomize", "scenarios")
NAMES = sorted(os.listdir(ROOT))


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name", NAMES)
def test_scenario(name, monkeypatch):
    case = os.path.realpath(os.path.join(ROOT, name))
    entry = _read(os.path.join(case, "entry.txt")).strip()
    flags = [line for line in _read(os.path.join(case, "flags.txt")).splitlines() if line]
    monkeypatch.chdir(case)
    path = os.path.normpath(os.path.join("input", entry))
    if os.path.exists(os.path.join(case, "expected.yaml")):
        assert render(build(path, **build_options(flags))) == _read(os.path.join(case, "expected.yaml"))
        return
    with pytest.raises(KustomizeError) as info:
        build(path, **build_options(flags))
    recorded = _read(os.path.join(case, "expected.err")).replace("<CASE>", case)
    recorded = recorded[recorded.index('"command failed"'):].rstrip("\n")
    assert klog_command_failed(str(info.value)) == recorded
