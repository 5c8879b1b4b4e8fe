"""Tables served over the in-process transport: content negotiation reaches the printers."""
from __future__ import annotations

import json
import pathlib

import httpx
import pytest

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.storage import open_store

DATA = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "tables"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


@pytest.fixture
def client():
    server = APIServer(open_store("memory://"), Registry())
    server.bootstrap()
    transport = InProcessTransport(create_app(server))
    with httpx.Client(transport=transport, base_url="http://kubelite") as c:
        yield c
    transport.close()


def _recorded(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def test_deployment_list_table_has_kube_apiserver_columns(client):
    expected = _recorded("deployments_apps.table.json")
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert client.post("/apis/apps/v1/namespaces/default/deployments", json=body).status_code == 201
    table = client.get("/apis/apps/v1/namespaces/default/deployments", headers={"Accept": TABLE}).json()
    assert table["kind"] == "Table"
    assert table["columnDefinitions"] == expected["columnDefinitions"]
    (row,) = table["rows"]
    assert row["cells"][:4] == ["web", "0/1", 0, 0]
    assert row["cells"][5:] == ["c", "nginx", "app=web"]
    assert row["object"]["kind"] == "PartialObjectMetadata"
    assert table["metadata"]["resourceVersion"]


def test_single_object_table_with_include_object_none(client):
    client.post("/api/v1/namespaces/default/configmaps",
                json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}})
    table = client.get("/api/v1/namespaces/default/configmaps/cm?includeObject=None",
                       headers={"Accept": TABLE.replace("v=v1", "v=v1beta1")}).json()
    assert table["apiVersion"] == "meta.k8s.io/v1beta1"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert table["rows"][0]["cells"][:2] == ["cm", 1]
    assert table["rows"][0]["object"] is None


def test_ages_count_to_the_clusters_clock():
    """A cluster whose clock was moved (a fake clock, or Python's advance) prints ages as its
    controllers see them: GET, LIST (from the cache of encoded items) and watch alike."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    clock = FakeClock()
    with Cluster("memory://", clock=clock, controllers=False) as cluster, cluster.http_client() as http:
        cms = "/api/v1/namespaces/default/configmaps"
        assert http.post(cms, json={"metadata": {"name": "a"}}).status_code == 201
        clock.advance(3600)
        for _ in range(2):  # the second LIST is answered from the encoded items
            table = http.get(cms, headers={"Accept": TABLE}).json()
            assert [row["cells"][-1] for row in table["rows"]] == ["60m"]
        one = http.get(cms + "/a", headers={"Accept": TABLE}).json()
        assert one["rows"][0]["cells"][-1] == "60m"
        with http.stream("GET", cms + "?watch=true&timeoutSeconds=1", headers={"Accept": TABLE}) as watch:
            event = json.loads(next(watch.iter_lines()))
        assert event["object"]["rows"][0]["cells"][-1] == "60m"
