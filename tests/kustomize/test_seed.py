"""Seed 004 part 2 ("Declarative Management of Kubernetes Objects Using Kustomize"):
every example, replayed verbatim by record_seed.py, against what the installed
kubectl printed for it."""
from __future__ import annotations

import os

import pytest

from kubelite.kustomize import KustomizeError, build, render

from .cases import error_message

ROOT = os.path.join(os.path.dirname(__file__), "..", "data", "kustomize", "seed004")
EXAMPLES = sorted(os.listdir(ROOT))


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("example", EXAMPLES)
def test_seed_example(example):
    cdir = os.path.join(ROOT, example)
    path = os.path.normpath(os.path.join(cdir, "input", _read(os.path.join(cdir, "entry.txt")).strip()))
    if os.path.exists(os.path.join(cdir, "expected.yaml")):
        assert render(build(path)) == _read(os.path.join(cdir, "expected.yaml"))
    else:
        with pytest.raises(KustomizeError) as info:
            build(path)
        expected = error_message(_read(os.path.join(cdir, "expected.err")))
        assert str(info.value) == expected
