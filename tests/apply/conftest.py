"""Fixtures for apply tests: a `kubelite serve` process, kubectl and kubelite runners."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from apply_support import HAVE_KUBECTL, KUBECTL, Runner, Served  # noqa: E402,F401


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("served")
    server = Served(base / "data", base / "kubeconfig").start()
    try:
        yield Runner(base, server.kubeconfig)
    finally:
        server.stop()


@pytest.fixture
def embedded(tmp_path):
    return Runner(tmp_path, None)
