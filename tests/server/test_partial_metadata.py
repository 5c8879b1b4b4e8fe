"""Metadata-only answers (PartialObjectMetadata / PartialObjectMetadataList) and the Accept
negotiation that picks them, Tables or the object, as kube-apiserver v1.32 does
(endpoints/handlers/response.go, negotiation/negotiate.go; types from apimachinery meta/v1)."""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

from tests.server.test_serve_support import serving

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
META_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1"
# what client-go's metadata client sends for a list
CLIENT_GO_LIST = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            for name in ("a", "b"):
                client.post(CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap",
                                              "metadata": {"name": name, "labels": {"app": name}},
                                              "data": {"k": "v"}})
            yield client


def _get(api, url, accept):
    return api.get(url, headers={"Accept": accept})


def test_get_answers_the_metadata(api):
    full = api.get(f"{CONFIGMAPS}/a").json()
    got = _get(api, f"{CONFIGMAPS}/a", META)
    assert got.status_code == 200
    assert got.json() == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                          "metadata": full["metadata"]}
    assert list(got.json()) == ["kind", "apiVersion", "metadata"]


def test_list_answers_a_metadata_list(api):
    full = api.get(CONFIGMAPS, params={"limit": 1}).json()
    got = _get(api, f"{CONFIGMAPS}?limit=1", CLIENT_GO_LIST)
    assert got.status_code == 200
    body = got.json()
    assert body["kind"] == "PartialObjectMetadataList" and body["apiVersion"] == "meta.k8s.io/v1"
    assert body["metadata"] == full["metadata"]  # resourceVersion, continue, remainingItemCount
    assert body["items"] == [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                              "metadata": full["items"][0]["metadata"]}]


def test_an_empty_metadata_list_has_null_items(api):
    # metav1.PartialObjectMetadataList.Items has no omitempty and is never allocated when empty
    body = _get(api, f"{CONFIGMAPS}?labelSelector=app%3Dnone", META_LIST).json()
    assert body["items"] is None


def test_v1beta1(api):
    got = _get(api, f"{CONFIGMAPS}/a", META.replace("v=v1", "v=v1beta1")).json()
    assert got["apiVersion"] == "meta.k8s.io/v1beta1"
    listed = _get(api, CONFIGMAPS, META_LIST.replace("v=v1", "v=v1beta1")).json()
    assert {i["apiVersion"] for i in listed["items"]} == {"meta.k8s.io/v1beta1"}


@pytest.mark.parametrize("url, accept, message", [
    (CONFIGMAPS, META, "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"),
    (f"{CONFIGMAPS}/a", META_LIST,
     "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)"),
])
def test_the_wrong_shape_is_not_acceptable(api, url, accept, message):
    got = _get(api, url, accept)
    assert got.status_code == 406
    assert got.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": message, "reason": "NotAcceptable", "code": 406}


def test_errors_pass_through(api):
    got = _get(api, f"{CONFIGMAPS}/missing", META)
    assert (got.status_code, got.json()["reason"]) == (404, "NotFound")


@pytest.mark.parametrize("accept, kind", [
    (f"{META_LIST},{TABLE}", "PartialObjectMetadataList"),
    (f"{TABLE},{META_LIST}", "Table"),
    (f"application/json,{TABLE}", "ConfigMapList"),  # the first acceptable clause wins
    (f"{META_LIST};q=0.5,{TABLE}", "Table"),  # q orders the clauses
    (f"application/json;as=Table;g=other.io;v=v1,{META_LIST}", "PartialObjectMetadataList"),
    (f"application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,{META_LIST}", "PartialObjectMetadataList"),
    ("application/json;as=Table;g=meta.k8s.io;v=v2,application/json", "ConfigMapList"),
])
def test_negotiation_order(api, accept, kind):
    assert _get(api, CONFIGMAPS, accept).json()["kind"] == kind


def test_a_write_answers_in_the_negotiated_form(api):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "written"}}
    got = api.post(CONFIGMAPS, json=body, headers={"Accept": META})
    assert got.status_code == 201
    assert got.json()["kind"] == "PartialObjectMetadata" and got.json()["metadata"]["name"] == "written"
    api.delete(f"{CONFIGMAPS}/written")


def test_watch_sends_metadata(api):
    got = _get(api, f"{CONFIGMAPS}?watch=1&timeoutSeconds=1&labelSelector=app%3Da", META)
    events = [json.loads(line) for line in got.text.splitlines()]
    assert [e["type"] for e in events] == ["ADDED"]
    assert events[0]["object"]["kind"] == "PartialObjectMetadata"
    assert set(events[0]["object"]) == {"kind", "apiVersion", "metadata"}


def test_watch_asking_for_the_list_form_sends_objects_whole(api):
    got = _get(api, f"{CONFIGMAPS}?watch=1&timeoutSeconds=1&labelSelector=app%3Da", META_LIST)
    event = json.loads(got.text.splitlines()[0])
    assert event["object"]["kind"] == "ConfigMap" and event["object"]["data"] == {"k": "v"}


def test_the_official_client_reads_a_metadata_list(tmp_path):
    kubernetes = pytest.importorskip("kubernetes")
    with serving(tmp_path, "--controllers=-*") as server:
        client = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
        try:
            from kubernetes.dynamic import DynamicClient

            core = kubernetes.client.CoreV1Api(client)
            core.create_namespaced_config_map("default", {"metadata": {"name": "m"}, "data": {"k": "v"}})
            answer = DynamicClient(client).request("get", "/api/v1/namespaces/default/configmaps",
                                                   header_params={"Accept": CLIENT_GO_LIST})
            assert answer.kind == "PartialObjectMetadataList"
            names = [item.metadata.name for item in answer.items]
            assert "m" in names and all(item.data is None for item in answer.items)
        finally:
            client.close()


def _recorded(name: str) -> dict:
    """The JSON body of a recorded kube-apiserver answer in tests/data/reference/apiserver/tables."""
    import pathlib

    text = (pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "tables" / name).read_text()
    return json.loads(text.split("\n\n", 1)[1])


def test_recorded_shapes(api):
    for name, url, accept in (("accept_partialobjectmetadata.http", f"{CONFIGMAPS}/a", META),
                              ("accept_partialobjectmetadatalist.http", CONFIGMAPS, META_LIST)):
        recorded, ours = _recorded(name), _get(api, url, accept).json()
        assert list(ours) == list(recorded) and ours["kind"] == recorded["kind"]
        first = ours["items"][0] if "items" in ours else ours
        expected = recorded["items"][0] if "items" in recorded else recorded
        assert list(first) == list(expected) and list(first["metadata"])[:5] == list(expected["metadata"])[:5]


@pytest.mark.parametrize("recording, url, accept", [
    ("accept_text-html.http", CONFIGMAPS, "text/html"),  # go-restful's route check
    ("accept_table-protobuf.http", CONFIGMAPS,  # the handler's negotiation
     "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1"),
])
def test_unacceptable_headers_are_the_recorded_406(api, recording, url, accept):
    got = _get(api, url, accept)
    assert got.status_code == 406
    assert got.json() == _recorded(recording)


def test_a_single_object_route_lists_no_stream_types(api):
    got = _get(api, f"{CONFIGMAPS}/a", "text/html")
    assert got.json()["message"] == ("406: Not Acceptable\n\nAvailable representations: application/json, "
                                     "application/yaml, application/vnd.kubernetes.protobuf")


def test_metadata_asked_only_as_protobuf_comes_as_json(api):
    got = _get(api, CONFIGMAPS, META_LIST.replace("application/json", "application/vnd.kubernetes.protobuf"))
    assert got.status_code == 200 and got.json()["kind"] == "PartialObjectMetadataList"
