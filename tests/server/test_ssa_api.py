"""Server-side apply through the HTTP API of an in-process cluster: cases the recordings leave out."""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

APPLY = {"Content-Type": "application/apply-patch+yaml"}
PATH = "/api/v1/namespaces/default/configmaps/x"


@pytest.fixture
def cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as c:
        yield c


@pytest.fixture
def api(cluster):
    with cluster.http_client() as client:
        yield client


def _apply(api, body: dict, manager: str = "a", **query):
    return api.patch(PATH, params={"fieldManager": manager, **query}, content=json.dumps(body), headers=APPLY)


def _cm(**meta) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", **meta}, "data": {"a": "1"}}


def test_a_namespace_other_than_the_url_is_refused_on_create_and_on_update(api):
    for _ in range(2):
        r = _apply(api, _cm(namespace="other"))
        assert r.status_code == 400
        assert r.json()["message"] == ("the namespace of the provided object does not match the namespace sent "
                                       "on the request")
        assert _apply(api, _cm()).status_code in (200, 201)


def test_an_unchanged_apply_writes_nothing(api, cluster):
    first = _apply(api, _cm()).json()
    cluster.advance(5)
    again = _apply(api, _cm())
    assert again.status_code == 200
    assert again.json()["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert again.json()["metadata"]["managedFields"] == first["metadata"]["managedFields"]


def test_update_managers_are_named_after_the_user_agent_without_field_manager(api):
    api.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "x"}, "data": {"a": "1"}},
             headers={"User-Agent": "my-tool/2.0 (linux)"})
    r = api.patch(PATH, content=json.dumps({"data": {"b": "2"}}),
                  headers={"Content-Type": "application/merge-patch+json", "User-Agent": "other/1"})
    managers = [(e["manager"], e["operation"]) for e in r.json()["metadata"]["managedFields"]]
    assert managers == [("my-tool", "Update"), ("other", "Update")]


def test_nulls_in_an_applied_configuration_are_stored_as_decoding_would(api):
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "n", "labels": None},
                  "spec": {"replicas": None, "selector": {"matchLabels": {"app": "n"}},
                           "template": {"metadata": {"labels": {"app": "n"}},
                                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    r = api.patch("/apis/apps/v1/namespaces/default/deployments/n", params={"fieldManager": "a"},
                  content=json.dumps(deployment), headers=APPLY)
    assert r.status_code == 201
    assert r.json()["spec"]["replicas"] == 1 and "labels" not in r.json()["metadata"]  # defaulted / gone
    r = _apply(api, {**_cm(), "data": {"a": None, "b": "1"}})
    assert r.json()["data"] == {"a": "", "b": "1"}  # a map of strings keeps the key, with Go's zero value
    fields = r.json()["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields == {"f:data": {"f:a": {}, "f:b": {}}}
