"""List resourceVersion semantics against the recorded kube-apiserver answers (lists/rv-future*)."""
from __future__ import annotations

import json
import pathlib
import re
import threading
import time

import httpx
import pytest

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.storage import open_store

LISTS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "lists"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api():
    server = APIServer(open_store("memory://"), Registry())
    server.bootstrap()
    return server


@pytest.fixture
def client(api):
    with httpx.Client(transport=InProcessTransport(create_app(api)), base_url="http://kubelite") as c:
        yield c


def _recorded(name: str) -> tuple[int, dict, str]:
    raw = (LISTS / f"{name}.txt").read_bytes().decode()
    response = raw.split("### RESPONSE", 1)[1].split("\n", 1)[1]
    status = int(response.split(" ", 2)[1])
    retry = re.search(r"^Retry-After: (\d+)", response, re.M)
    return status, json.loads(response.rsplit("\r\n\r\n", 1)[1]), retry.group(1) if retry else ""


def test_future_resource_version_waits_then_504(api, client):
    status, want, retry_after = _recorded("rv-future")
    current = api.store.current_revision()
    start = time.monotonic()
    response = client.get(CONFIGMAPS, params={"resourceVersion": str(current + 1000)})
    waited = time.monotonic() - start
    assert 2.9 <= waited < 4.5
    assert response.status_code == status == 504
    assert response.headers["retry-after"] == retry_after == "1"
    want["message"] = f"Timeout: Too large resource version: {current + 1000}, current: {current}"
    assert response.json() == want


def test_future_resource_version_is_served_once_reached(api, client, monkeypatch):
    target = api.store.current_revision() + 1
    waiting = threading.Event()
    revision = api.store.current_revision

    def looked_at_revision() -> int:
        current = revision()
        if current < target:
            waiting.set()  # the list is waiting for the revision it asked for
        return current

    monkeypatch.setattr(api.store, "current_revision", looked_at_revision)

    def write_once_the_list_waits():
        if waiting.wait(timeout=10):
            client.post(CONFIGMAPS, json={"metadata": {"name": "late"}})

    writer = threading.Thread(target=write_once_the_list_waits)
    writer.start()
    response = client.get(CONFIGMAPS, params={"resourceVersion": str(target)})
    writer.join()
    assert response.status_code == 200
    assert [item["metadata"]["name"] for item in response.json()["items"]] == ["late"]


def test_future_resource_version_exact_is_etcds_500(api, client):
    status, want, _ = _recorded("rv-future-exact")
    response = client.get(CONFIGMAPS, params={"resourceVersion": str(api.store.current_revision() + 1000),
                                              "resourceVersionMatch": "Exact"})
    assert response.status_code == status == 500
    assert response.json() == want
