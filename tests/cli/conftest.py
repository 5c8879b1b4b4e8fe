"""Running `kubelite` (and /usr/bin/kubectl) as subprocesses with an isolated HOME, against the
embedded cluster or a `kubelite serve` started for the module."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

KUBECTL = "/usr/bin/kubectl"
HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "server"))

from test_serve_support import served  # noqa: E402,F401 (a fixture: `kubelite serve` for the module)


class CLI:
    """A kubelite (or kubectl) command line with its environment; `run()` returns CompletedProcess."""

    def __init__(self, home: pathlib.Path, argv0: list[str], extra: list[str] = ()):
        self.home = home
        self.argv0 = argv0
        self.extra = list(extra)
        self.env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
        self.env.update(HOME=str(home), KUBELITE_HOME=str(home / "kubelite"))

    def run(self, *args: str, stdin: str | None = None, cwd: pathlib.Path | None = None):
        return subprocess.run(self.argv0 + list(args) + self.extra, input=stdin, capture_output=True, text=True,
                              env=self.env, cwd=cwd, timeout=60)


def kubelite_argv() -> list[str]:
    return [sys.executable, "-m", "kubelite"]


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
