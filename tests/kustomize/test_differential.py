"""Differential tests: seeded random kustomizations built by kubelite and by
/usr/bin/kubectl kustomize must print the same bytes."""
from __future__ import annotations

import subprocess

import pytest

from kubelite.kustomize import build, render

from .gen import random_tree

SEEDS = list(range(30))


@pytest.mark.kubectl
@pytest.mark.parametrize("seed", SEEDS)
def test_random_kustomization(seed, tmp_path, kubectl):
    target = random_tree(str(tmp_path), seed)
    run = subprocess.run([kubectl, "kustomize", target], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert render(build(target)) == run.stdout
