"""A client's write is answered once it is on disk: the API server asks the store to make what it
committed durable (SQLite: one fsync of its log, shared by writes that end together) after the
write and before the answer — in a writer thread (as over HTTP) and on the in-process door's own thread alike."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

CM_URL = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def cluster(tmp_path):
    with Cluster(str(tmp_path / "state.db"), clock=FakeClock(), controllers=False) as opened:
        yield opened


def _recording(monkeypatch, store) -> list:
    """The store's revision each time the server asks it to be durable."""
    asked, real = [], store.durable

    def durable():
        asked.append(store.current_revision())
        real()

    monkeypatch.setattr(store, "durable", durable)
    return asked


def test_a_write_through_the_door_is_durable_before_its_answer(cluster, monkeypatch):
    asked = _recording(monkeypatch, cluster.store)
    with cluster.http_client() as api:
        made = api.post(CM_URL, json={"metadata": {"name": "a"}, "data": {"k": "v"}})
        assert made.status_code == 201
        assert asked and asked[-1] >= int(made.json()["metadata"]["resourceVersion"])
        before = len(asked)
        assert api.get(f"{CM_URL}/a").status_code == 200
        assert len(asked) == before  # reads do not wait for the disk


def test_a_write_handed_to_the_writer_threads_is_durable_before_its_answer(cluster, monkeypatch):
    # a request with a deadline of its own is served by the writer threads, as over HTTP
    asked = _recording(monkeypatch, cluster.store)
    with cluster.http_client() as api:
        made = api.post(CM_URL, params={"timeout": "30s"}, json={"metadata": {"name": "b"}, "data": {"k": "v"}})
        assert made.status_code == 201
        assert asked and asked[-1] >= int(made.json()["metadata"]["resourceVersion"])
