"""A cluster per test, in memory, on a fake clock: tests settle it or move its clock, never sleep."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster


@pytest.fixture
def cluster():
    with Cluster("memory://", clock=FakeClock()) as c:
        yield c


@pytest.fixture
def api(cluster):
    """An httpx client to the cluster's API (in-process)."""
    with cluster.http_client() as client:
        yield client
