"""The ASGI app through the in-process transport, against recorded kube-apiserver responses."""
from __future__ import annotations

import json
import pathlib

import httpx
import pytest

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.routing import Query, parse_request
from kubelite.server.storage import open_store

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver"


@pytest.fixture
def api():
    server = APIServer(open_store("memory://"), Registry())
    server.bootstrap()
    return server


@pytest.fixture
def client(api):
    transport = InProcessTransport(create_app(api))
    with httpx.Client(transport=transport, base_url="http://kubelite") as c:
        yield c
    transport.close()


def _body(folder, name):
    return json.loads((REF / folder / f"{name}.body.json").read_text())


@pytest.mark.parametrize("method,path,verb,ns,resource,name,sub", [
    ("GET", "/api/v1/namespaces/default/pods", "list", "default", "pods", "", ""),
    ("GET", "/api/v1/namespaces/default/pods/p", "get", "default", "pods", "p", ""),
    ("GET", "/api/v1/pods", "list", "", "pods", "", ""),
    ("GET", "/api/v1/namespaces/x", "get", "x", "namespaces", "x", ""),
    ("PUT", "/api/v1/namespaces/x/finalize", "update", "x", "namespaces", "x", "finalize"),
    ("DELETE", "/apis/apps/v1/namespaces/d/deployments", "deletecollection", "d", "deployments", "", ""),
    ("PATCH", "/apis/apps/v1/namespaces/d/deployments/n/scale", "patch", "d", "deployments", "n", "scale"),
    ("GET", "/api/v1/watch/namespaces/d/configmaps", "watch", "d", "configmaps", "", ""),
])
def test_routing(method, path, verb, ns, resource, name, sub):
    info = parse_request(method, path, Query(""))
    assert (info.verb, info.namespace, info.resource, info.name, info.subresource) == \
        (verb, ns, resource, name, sub)


def test_watch_query_makes_a_list_a_watch():
    assert parse_request("GET", "/api/v1/configmaps", Query("watch=1")).verb == "watch"


def test_default_namespaces_and_service_accounts(client):
    names = {i["metadata"]["name"] for i in client.get("/api/v1/namespaces").json()["items"]}
    assert names == {"default", "kube-system", "kube-public", "kube-node-lease"}
    client.post("/api/v1/namespaces", json={"metadata": {"name": "team"}})
    sa = client.get("/api/v1/namespaces/team/serviceaccounts/default")
    assert sa.status_code == 200


@pytest.mark.parametrize("ns", ["default", "kube-system", "kube-public"])
def test_immortal_namespaces(client, ns):
    r = client.delete(f"/api/v1/namespaces/{ns}")
    expected = json.loads((REF / "errors" / f"namespace-delete-{ns}.body.json").read_text())
    assert (r.status_code, r.json()) == (403, expected)


@pytest.mark.parametrize("name,selector", [
    ("label-error-gt", "labelSelector=env%3Eprod"),
    ("label-error-bad-key", "labelSelector=bad%20key=1"),
    ("field-error-unsupported-label", "fieldSelector=data.k=cm-a"),
    ("field-error-no-operator", "fieldSelector=metadata.name"),
])
def test_selector_errors_match_reference(client, name, selector):
    r = client.get(f"/api/v1/namespaces/default/configmaps?{selector}")
    assert r.json() == _body("lists", name)


def test_label_selectors(client):
    for name, labels in (("a", {"env": "prod", "tier": "web"}), ("b", {"env": "dev"}), ("c", {})):
        assert client.post("/api/v1/namespaces/default/configmaps",
                           json={"metadata": {"name": name, "labels": labels}}).status_code == 201

    def names(selector):
        items = client.get("/api/v1/namespaces/default/configmaps", params={"labelSelector": selector})
        return [i["metadata"]["name"] for i in items.json()["items"]]

    assert names("env=prod") == ["a"]
    assert names("env==prod") == ["a"]
    assert names("env!=prod") == ["b", "c"]
    assert names("env in (prod,dev)") == ["a", "b"]
    assert names("env notin (prod)") == ["b", "c"]
    assert names("env") == ["a", "b"]
    assert names("!env") == ["c"]
    assert names("env=prod,tier=web") == ["a"]


def test_pagination(client):
    for i in range(5):
        client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"cm-{i}"}})
    seen, token = [], None
    while True:
        params = {"limit": 2, **({"continue": token} if token else {})}
        page = client.get("/api/v1/namespaces/default/configmaps", params=params).json()
        seen += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue")
        if not token:
            break
    assert seen == [f"cm-{i}" for i in range(5)]


def test_create_requires_existing_namespace(client):
    r = client.post("/api/v1/namespaces/missing/configmaps", json={"metadata": {"name": "x"}})
    assert r.status_code == 404
    assert r.json()["message"] == 'namespaces "missing" not found'


def test_stale_update_conflicts(client):
    created = client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "c"}}).json()
    client.put("/api/v1/namespaces/default/configmaps/c", json={**created, "data": {"a": "1"}})
    r = client.put("/api/v1/namespaces/default/configmaps/c", json={**created, "data": {"a": "2"}})
    assert r.status_code == 409
    assert r.json()["message"] == ('Operation cannot be fulfilled on configmaps "c": the object has been '
                                   'modified; please apply your changes to the latest version and try again')


def test_generate_name(client):
    r = client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"generateName": "gen-"}})
    name = r.json()["metadata"]["name"]
    assert r.status_code == 201 and name.startswith("gen-") and len(name) == 9


def test_finalizers_hold_deletion(client):
    client.post("/api/v1/namespaces/default/configmaps",
                json={"metadata": {"name": "held", "finalizers": ["example.com/x"]}})
    r = client.delete("/api/v1/namespaces/default/configmaps/held")
    assert r.status_code == 200 and r.json()["metadata"]["deletionTimestamp"]
    obj = client.get("/api/v1/namespaces/default/configmaps/held").json()
    obj["metadata"]["finalizers"] = []
    assert client.put("/api/v1/namespaces/default/configmaps/held", json=obj).status_code == 200
    assert client.get("/api/v1/namespaces/default/configmaps/held").status_code == 404


def test_strategic_patch_on_custom_resource_is_415(client):
    crd = json.loads((REF / "defaults" / "crd-minimal.get.raw.json").read_text())
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"):
        crd["metadata"].pop(key, None)
    crd.pop("status", None)
    assert client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
    plural, group = crd["spec"]["names"]["plural"], crd["spec"]["group"]
    version = crd["spec"]["versions"][0]["name"]
    base = f"/apis/{group}/{version}/namespaces/default/{plural}"
    assert client.post(base, json={"apiVersion": f"{group}/{version}", "kind": crd["spec"]["names"]["kind"],
                                   "metadata": {"name": "g"}}).status_code == 201
    r = client.patch(f"{base}/g", content=b"{}", headers={"content-type": "application/strategic-merge-patch+json"})
    assert r.status_code == 415
    assert r.json() == _body("errors", "patch-strategic-on-cr")


def test_watch_from_compacted_revision_is_an_error_event(api, client):
    for i in range(3):
        client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"w{i}"}})
    api.store.compact(api.store.current_revision())
    with client.stream("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1") as r:
        assert r.status_code == 200
        event = json.loads(next(r.iter_lines()))
    expected = json.loads((REF / "watch" / "watch-too-old-rv-1.events.jsonl").read_text().splitlines()[0])
    assert event["type"] == expected["type"] == "ERROR"
    assert {k: v for k, v in event["object"].items() if k != "message"} == \
        {k: v for k, v in expected["object"].items() if k != "message"}
    assert event["object"]["message"].startswith("too old resource version: 1 (")


def test_dry_run_everywhere(client):
    r = client.post("/api/v1/namespaces/default/configmaps?dryRun=All", json={"metadata": {"name": "d"}})
    assert r.status_code == 201
    assert client.get("/api/v1/namespaces/default/configmaps/d").status_code == 404
    client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "d"}, "data": {"a": "1"}})
    client.patch("/api/v1/namespaces/default/configmaps/d?dryRun=All", content=b'{"data":{"a":"2"}}',
                 headers={"content-type": "application/merge-patch+json"})
    client.delete("/api/v1/namespaces/default/configmaps/d?dryRun=All")
    assert client.get("/api/v1/namespaces/default/configmaps/d").json()["data"] == {"a": "1"}


def test_apply_patch_needs_a_field_manager(client):
    client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "s"}})
    r = client.patch("/api/v1/namespaces/default/configmaps/s", content=b"{}",
                     headers={"content-type": "application/apply-patch+yaml"})
    assert r.status_code == 422
    assert r.json()["message"] == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                                   "is required for apply patch")


def test_unknown_fields_warn_strict_ignore(client):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "u", "bogusMeta": 1}, "spec": {"x": 1}}
    r = client.post("/api/v1/namespaces/default/configmaps", json=body)
    assert r.headers.get_list("warning") == ['299 - "unknown field \\"metadata.bogusMeta\\""',
                                             '299 - "unknown field \\"spec\\""']
    body["metadata"]["name"] = "u2"
    r = client.post("/api/v1/namespaces/default/configmaps?fieldValidation=Strict", json=body)
    strict = _body("errors", "fieldvalidation-strict")
    assert (r.status_code, r.json()["message"]) == (400, strict["message"])
