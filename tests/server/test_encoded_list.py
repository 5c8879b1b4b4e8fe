"""LIST from encoded items (handlers.encodedlist): the same bytes as the ordinary encoding,
and never an item older than the store holds."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.handlers import encodedlist, resources
from kubelite.server.handlers.http import Request
from kubelite.server.routing import Query, parse_request

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}


@pytest.fixture(scope="module")
def cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as c, c.http_client() as client:
        client.post("/api/v1/namespaces", json={"metadata": {"name": "lists"}}).raise_for_status()
        for i in range(25):
            # HTML-sensitive and non-ASCII text: Go's escapes must come out the same way.
            client.post("/api/v1/namespaces/lists/configmaps", json={
                "metadata": {"name": f"cm-{i:02}", "labels": {"group": f"g{i % 3}"},
                             "annotations": {"note": "<a & b> \u2028 é"}},
                "data": {"k": "v" * i}}).raise_for_status()
        client.post("/apis/apps/v1/namespaces/lists/deployments", json={"metadata": {"name": "d"}, "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}},
                         "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}).raise_for_status()
        client.post("/api/v1/namespaces/lists/pods", json={"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "image": "nginx"}]}}).raise_for_status()
        client.put("/api/v1/namespaces/lists/pods/p/status", json={
            "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": "Succeeded", "containerStatuses": [{
                "name": "c", "image": "nginx", "imageID": "", "ready": False, "restartCount": 2,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}}).raise_for_status()
        client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).raise_for_status()
        c.settle()
        for i in range(3):
            client.post("/apis/example.com/v1/namespaces/lists/widgets", json={
                "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": f"w{i}"},
                "spec": {"z": 1, "a": [i]}}).raise_for_status()
        yield c


def _request(cluster, path: str, query: str, headers: dict | None):
    request = Request(method="GET", path=path, query=Query(query.encode()), headers=headers or {},
                      clock=cluster.api.clock)  # as the app sets it: Tables' ages on the cluster's clock
    info = parse_request("GET", path, request.query)
    r = cluster.api.registry.lookup(info.api_group, info.api_version, info.resource)
    namespace = info.namespace if r.namespaced else ""
    return request, r, namespace, resources.list_options(request, r)


def _fast(cluster, path: str, query: str = "", headers: dict | None = None) -> bytes | None:
    """The encoded-items answer to one LIST, or None when it declines."""
    request, r, namespace, opts = _request(cluster, path, query, headers)
    fast = encodedlist.respond(cluster.api, request, r, namespace, opts)
    return fast.body if fast is not None else None


def _both(cluster, path: str, query: str = "", headers: dict | None = None) -> tuple[bytes | None, bytes]:
    """(encoded-items answer or None when it declines, the ordinary answer) for one LIST."""
    fast = _fast(cluster, path, query, headers)
    request, r, namespace, opts = _request(cluster, path, query, headers)
    return fast, resources._respond(request, r, cluster.api.list(r, namespace, opts)).body


@pytest.mark.parametrize("path,query", [
    ("/api/v1/namespaces/lists/configmaps", ""),
    ("/api/v1/configmaps", ""),
    ("/api/v1/namespaces/lists/configmaps", "labelSelector=group%3Dg1"),
    ("/api/v1/namespaces/lists/configmaps", "labelSelector=group+notin+(g1,g2)"),
    ("/api/v1/namespaces/lists/configmaps", "labelSelector=nothere"),
    ("/api/v1/namespaces/lists/configmaps", "limit=4"),
    ("/api/v1/namespaces/lists/configmaps", "limit=4&labelSelector=group%3Dg2"),
    ("/api/v1/namespaces/lists/configmaps", "resourceVersion=0"),
    ("/api/v1/namespaces/empty/configmaps", ""),
    ("/api/v1/namespaces", ""),
    ("/apis/apps/v1/namespaces/lists/deployments", ""),
    ("/apis/example.com/v1/namespaces/lists/widgets", ""),
    ("/apis/example.com/v1/namespaces/lists/widgets", "limit=1"),
])
def test_same_bytes_as_the_ordinary_encoding(cluster, path, query):
    for _ in range(2):  # the first answer fills the cache, the second reads it
        fast, slow = _both(cluster, path, query)
        assert fast is not None
        assert fast == slow


def test_continue_pages_are_the_same(cluster):
    path = "/api/v1/namespaces/lists/configmaps"
    fast, slow = _both(cluster, path, "limit=10")
    import json

    token = json.loads(slow)["metadata"]["continue"]
    fast, slow = _both(cluster, path, f"limit=10&continue={token}")
    assert fast == slow and b'"remainingItemCount":5' in fast


TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
TABLE_BETA = {"accept": "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}


@pytest.mark.parametrize("path,query,headers", [
    ("/api/v1/namespaces/lists/configmaps", "", TABLE),
    ("/api/v1/configmaps", "labelSelector=group%3Dg1", TABLE),
    ("/api/v1/namespaces/lists/configmaps", "limit=4&includeObject=Object", TABLE),
    ("/api/v1/namespaces/lists/configmaps", "includeObject=None", TABLE_BETA),
    ("/api/v1/namespaces/empty/configmaps", "", TABLE),
    ("/api/v1/namespaces", "", TABLE),
    ("/apis/apps/v1/namespaces/lists/deployments", "", TABLE),
    ("/apis/apps/v1/namespaces/lists/deployments", "includeObject=Object", TABLE),
    ("/api/v1/namespaces/lists/pods", "", TABLE),
    ("/apis/example.com/v1/namespaces/lists/widgets", "", TABLE),
    ("/apis/example.com/v1/namespaces/lists/widgets", "includeObject=Object", TABLE_BETA),
])
def test_tables_are_the_same_bytes(cluster, path, query, headers):
    # Ages are printed from the cluster's clock in both paths (a fake one here).
    for _ in range(2):
        for attempt in range(3):
            fast, slow = _both(cluster, path, query, headers)
            if fast == slow:
                break
        assert fast is not None
        assert fast == slow


@pytest.mark.parametrize("query,headers", [
    ("pretty=true", {}),
    ("fieldSelector=metadata.name%3Dcm-01", {}),
    ("fieldSelector=metadata.name%3Dcm-01", TABLE),
    ("includeObject=Everything", TABLE),
    ("", {"accept": "application/yaml"}),
    ("", {"accept": "application/vnd.kubernetes.protobuf, */*"}),
    ("", {"accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}),
])
def test_declines_what_it_does_not_encode(cluster, query, headers):
    assert _fast(cluster, "/api/v1/namespaces/lists/configmaps", query, headers) is None


def test_a_write_shows_in_the_next_list(cluster):
    path = "/api/v1/namespaces/lists/configmaps"
    before, _ = _both(cluster, path)
    with cluster.http_client() as client:
        client.patch(f"{path}/cm-03", json={"data": {"k": "changed"}},
                     headers={"content-type": "application/merge-patch+json"}).raise_for_status()
    after, slow = _both(cluster, path)
    assert after == slow and after != before and b'"k":"changed"' in after


class _KV:
    def __init__(self, key: str, mod_revision: int, obj: dict):
        self.key, self.mod_revision, self.obj = key, mod_revision, obj


class _Resource:
    kind, list_kind, api_version, crd = "ConfigMap", "ConfigMapList", "v1", False


def _configmap(name: str, size: int) -> dict:
    return {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": name}, "data": {"k": "v" * size}}


def test_encoded_items_are_bounded_by_bytes_not_by_count():
    from kubelite.server import listcache

    frame = listcache.ListFrame(_Resource())
    budget = 40 * (listcache.ENTRY_OVERHEAD + 200)
    items = listcache.EncodedItems(max_bytes=budget)
    for i in range(30):  # 30 items of ~180 bytes fit the budget: no cliff at an entry count
        items.entry(frame, _KV(f"k{i}", 1, _configmap(f"c{i}", 100)), lambda kv: kv.obj)
    assert len(items) == 30
    before = items.size
    # a newer revision of a key replaces its entry: counted once
    items.entry(frame, _KV("k0", 2, _configmap("c0", 100)), lambda kv: kv.obj)
    assert len(items) == 30 and items.size == before
    # keeping the decoded object (a Table was asked for) counts more
    items.entry(frame, _KV("k1", 1, _configmap("c1", 100)), lambda kv: kv.obj, keep_object=True)
    assert items.size > before
    # past the budget the cache starts again rather than growing
    items.entry(frame, _KV("big", 1, _configmap("big", budget)), lambda kv: kv.obj)
    assert len(items) == 1 and items.size <= budget + listcache.ENTRY_OVERHEAD + budget + 200
