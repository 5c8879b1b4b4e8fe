"""A `kubelite serve` for a differential module, with /usr/bin/kubectl and kubelite pointed at it
and the module's manifests created (by kubectl)."""
from __future__ import annotations

import contextlib
import pathlib
import shutil
import sys
from typing import Iterator

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "server"))
from test_serve_support import serving  # noqa: E402


@contextlib.contextmanager
def served_sides(base: pathlib.Path, manifests: str, *serve_args: str) -> Iterator[tuple[CLI, CLI]]:
    """(kubectl, kubelite) against a started server holding `manifests`; stopped on the way out."""
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    with serving(base, *serve_args) as server:
        kubectl = CLI(base, [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(base / "c")])
        kubelite = CLI(base, kubelite_argv() + ["--kubeconfig", str(server.kubeconfig)])
        if manifests:
            made = kubectl.run("create", "-f", "-", stdin=manifests)
            assert made.returncode == 0, made.stderr
        yield kubectl, kubelite
