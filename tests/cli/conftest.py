"""Running `kubelite` (and /usr/bin/kubectl) as subprocesses with an isolated HOME, against the
embedded cluster or a `kubelite serve` started for the module."""
from __future__ import annotations

import pathlib
import shutil
import sys

import pytest

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from test_serve_support import served  # noqa: E402,F401 (a fixture: `kubelite serve` for the module)
from cli_support import CLI, KUBECTL, kubelite_argv  # noqa: E402


@pytest.fixture
def embedded(tmp_path) -> CLI:
    """kubelite against its embedded cluster: a fresh HOME with no ~/.kube/config."""
    return CLI(tmp_path, kubelite_argv())


@pytest.fixture
def remote(served, tmp_path) -> CLI:
    return CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])


@pytest.fixture
def kubectl(served, tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    return CLI(tmp_path, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "cache")])
