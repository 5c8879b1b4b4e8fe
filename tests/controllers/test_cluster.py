"""The Cluster: assembly, settling, and the CRD registry following a shared store."""
from __future__ import annotations

import time

from kubelite.server.cluster import Cluster

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object",
                                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}


def _eventually(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.01)


def test_two_clusters_on_one_file_agree_on_custom_resources(tmp_path):
    path = str(tmp_path / "state.db")
    with Cluster(path) as a, Cluster(path) as b, a.http_client() as ca, b.http_client() as cb:
        assert cb.get("/apis/example.com/v1/namespaces/default/widgets").status_code == 404
        assert ca.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
        assert _eventually(lambda: cb.get("/apis/example.com/v1/namespaces/default/widgets").status_code == 200,
                           timeout=10.0)
        created = cb.post("/apis/example.com/v1/namespaces/default/widgets",
                          json={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
        assert created.status_code == 201
        assert ca.get("/apis/example.com/v1/namespaces/default/widgets/w").json()["metadata"]["name"] == "w"
        assert ca.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com").is_success
        assert _eventually(lambda: cb.get("/apis/example.com/v1/namespaces/default/widgets").status_code == 404)


def test_settle_sees_the_crd_on_the_other_cluster_deterministically(tmp_path):
    path = str(tmp_path / "state.db")
    with Cluster(path, background=False) as a, Cluster(path, background=False) as b, a.http_client() as ca, \
            b.http_client() as cb:
        b.settle()
        assert ca.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
        assert b.settle()
        assert cb.get("/apis/example.com/v1/namespaces/default/widgets").status_code == 200


def test_a_fake_clock_cluster_settles_and_advances(cluster, api):
    assert cluster.settle()
    before = cluster.clock.time()
    cluster.advance(60)
    assert cluster.clock.time() == before + 60
    assert api.get("/api/v1/namespaces/default").status_code == 200


def test_a_settle_leaves_the_collector_as_it_found_it(cluster, api):
    """A settle freezes what the process held and collects less often while it works; after it,
    the collector's thresholds and frozen objects are those it found (a CLI's own are kept)."""
    import gc

    before = gc.get_threshold()
    try:
        for threshold in ((700, 10, 10), (200_000, 10, 10)):
            gc.set_threshold(*threshold)
            assert api.post("/api/v1/namespaces/default/configmaps",
                            json={"metadata": {"name": f"c{threshold[0]}"}}).status_code == 201
            frozen = gc.get_freeze_count()
            assert cluster.settle()
            assert gc.get_threshold() == threshold
            assert gc.get_freeze_count() == frozen
    finally:
        gc.set_threshold(*before)


def test_controllers_flag_follows_kube_controller_manager():
    from kubelite.server.controllers import default_controllers, select_controllers

    every = [c.name for c in default_controllers()]
    assert [c.name for c in select_controllers("*")] == every
    assert [c.name for c in select_controllers("-*")] == ["crd-registry"]  # the API server's own follower
    assert [c.name for c in select_controllers("")] == ["crd-registry"]
    without_jobs = [c.name for c in select_controllers("*,-job")]
    assert "job" not in without_jobs and "deployment" in without_jobs
    assert [c.name for c in select_controllers("deployment,replicaset")] == \
        [n for n in every if n in ("crd-registry", "deployment", "replicaset")]
    import pytest

    with pytest.raises(ValueError, match='"nope" is not in the list of known controllers'):
        select_controllers("*,-nope")


def test_a_cluster_without_controllers_runs_nothing(tmp_path):
    from kubelite.server.controllers import select_controllers

    with Cluster("memory://", controllers=select_controllers("-*"), background=False) as bare, \
            bare.http_client() as client:
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                      "spec": {"selector": {"matchLabels": {"app": "web"}},
                               "template": {"metadata": {"labels": {"app": "web"}},
                                            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        assert client.post("/apis/apps/v1/namespaces/default/deployments", json=deployment).status_code == 201
        assert bare.settle()
        assert client.get("/apis/apps/v1/namespaces/default/replicasets").json()["items"] == []


def test_the_controllers_cache_holds_what_decoding_the_store_gives(cluster, api):
    """The manager takes the objects the server just wrote (core.decode_written) rather than
    decoding their watch events again: what it caches is what the stored bytes decode to, key
    order included, and what it was handed is used once."""
    import json

    assert api.post("/api/v1/namespaces/default/configmaps",
                    json={"metadata": {"name": "w", "labels": {"a": "b"}}, "data": {"k": "v"}}).status_code == 201
    assert api.patch("/api/v1/namespaces/default/configmaps/w", json={"data": {"k2": "v2"}},
                     headers={"content-type": "application/merge-patch+json"}).status_code == 200
    assert api.post("/api/v1/namespaces/default/pods", json={
        "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}).status_code == 201
    assert cluster.settle()
    registry = cluster.api.registry
    for resource, name in (("configmaps", "w"), ("pods", "p"), ("namespaces", "default")):
        cached = cluster.manager.cache.get(resource, "" if resource == "namespaces" else "default", name)
        stored = cluster.api.get(registry.lookup("", "v1", resource), "" if resource == "namespaces" else "default",
                                 name)
        assert json.dumps(cached) == json.dumps(stored)
    assert cluster.api.written == {}
