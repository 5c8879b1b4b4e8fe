"""A module-scoped `kubelite serve` fixture for the client tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from test_serve_support import Served

    base = tmp_path_factory.mktemp("served")
    server = Served(base / "data", base / "kubeconfig").start()
    try:
        yield server
    finally:
        server.stop()
