"""Two processes on one SQLite store: `kubelite serve` and an in-process app on the same data dir.

Each must see the other's writes, and a watch opened in one must receive the events of writes
made by the other (the store's watch polls the shared database).
"""
from __future__ import annotations

import contextlib
import json
import ssl
import threading

import httpx
import pytest

from kubelite.server.storage import open_store
from replay_support import Server
from test_serve_support import Served

NS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture()
def pair(tmp_path):
    served = Served(tmp_path, tmp_path / "kubeconfig").start()
    remote = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca), timeout=20,
                          headers={"Authorization": f"Bearer {served.token}"})
    local = Server(open_store(str(tmp_path / "state.db")))
    try:
        yield remote, local
    finally:
        remote.close()
        local.close()
        served.stop()


def _cm(name: str, value: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": value}}


def test_each_sees_the_others_writes(pair):
    remote, local = pair
    made_remote = remote.post(NS, json=_cm("from-serve", "1"))
    assert made_remote.status_code == 201, made_remote.text
    assert local.must("GET", f"{NS}/from-serve")["data"] == {"k": "1"}
    made_local = local.must("POST", NS, _cm("from-inprocess", "2"))
    got = remote.get(f"{NS}/from-inprocess")
    assert got.status_code == 200 and got.json()["metadata"]["uid"] == made_local["metadata"]["uid"]
    # One global revision: the later write has the larger resourceVersion on both sides.
    assert int(made_local["metadata"]["resourceVersion"]) > int(made_remote.json()["metadata"]["resourceVersion"])
    names = {i["metadata"]["name"] for i in remote.get(NS).json()["items"]}
    assert {"from-serve", "from-inprocess"} <= names


def _collect(response, events: list) -> None:
    for line in response.iter_lines():
        if line:
            events.append(json.loads(line))


def test_watch_in_one_sees_writes_from_the_other(pair):
    remote, local = pair
    rv = remote.get(NS).json()["metadata"]["resourceVersion"]
    remote_events: list = []
    local_events: list = []
    with contextlib.ExitStack() as streams:
        # entered here: each watch has answered (it is open) before anything is written
        readers = [threading.Thread(target=_collect, args=(streams.enter_context(client.stream(
            "GET", f"{NS}?watch=1&resourceVersion={rv}&timeoutSeconds=3")), events))
            for client, events in ((remote, remote_events), (local.client, local_events))]
        for reader in readers:
            reader.start()
        local.must("POST", NS, _cm("w-local", "1"))
        assert remote.post(NS, json=_cm("w-remote", "1")).status_code == 201
        for reader in readers:
            reader.join(timeout=15)
    for events in (remote_events, local_events):
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
            ("ADDED", "w-local"), ("ADDED", "w-remote")]
