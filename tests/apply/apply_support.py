"""Helpers for apply tests: kubectl and kubelite runners against a server or the embedded cluster."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "server"))

from test_serve_support import serving  # noqa: E402

KUBECTL = "/usr/bin/kubectl"
HAVE_KUBECTL = pathlib.Path(KUBECTL).exists()


class Runner:
    """Runs kubectl or kubelite against one server (or kubelite against the embedded cluster)."""

    def __init__(self, base: pathlib.Path, kubeconfig: pathlib.Path | None):
        self.base = base
        self.kubeconfig = kubeconfig
        self.env = dict(os.environ, HOME=str(base / "home"), KUBELITE_HOME=str(base / "kubelite-home"))
        (base / "home").mkdir(exist_ok=True)

    def kubectl(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([KUBECTL, "--kubeconfig", str(self.kubeconfig), "--cache-dir", str(self.base / "cache"),
                               *args], input=stdin, capture_output=True, text=True, timeout=60, env=self.env)

    def kubelite(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        conn = ["--kubeconfig", str(self.kubeconfig)] if self.kubeconfig else []
        return subprocess.run([sys.executable, "-m", "kubelite", *args, *conn], input=stdin, capture_output=True,
                              text=True, timeout=60, env=self.env)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A `kubelite serve` for the test module, as a Runner of kubectl and kubelite against it."""
    base = tmp_path_factory.mktemp("served")
    with serving(base) as server:
        yield Runner(base, server.kubeconfig)
