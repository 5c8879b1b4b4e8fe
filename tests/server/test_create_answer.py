"""A create's answer is made from the bytes just stored (handlers.http.stored_as_served) rather
than by decoding them, ordering and encoding again: it must be, byte for byte, what a GET of the
object answers right after (which goes the long way), for every kind and content, and the long
way must be taken wherever the bytes could differ."""
from __future__ import annotations

import json

import pytest

from kubelite.server.cluster import Cluster
from kubelite.server.door import http_scope
from kubelite.server.handlers.http import stored_as_served

HEADERS = [(b"content-type", b"application/json"), (b"accept", b"application/json")]


@pytest.fixture(scope="module")
def door(tmp_path_factory):
    cluster = Cluster(str(tmp_path_factory.mktemp("answer") / "db.sqlite"), controllers=False)
    try:
        yield cluster.door(), cluster
    finally:
        cluster.close()


def call(door, method: str, path: str, body: dict | None = None, query: bytes = b"",
         headers=HEADERS) -> tuple[int, bytes]:
    scope = http_scope(method, "https", "kubelite", 443, path.encode(), query, headers)
    status, _, chunks = door.call(scope, json.dumps(body).encode() if body is not None else b"")
    return status, b"".join(chunks)


def created_then_read(door, collection: str, obj: dict) -> tuple[bytes, bytes]:
    status, created = call(door, "POST", collection, obj)
    assert status == 201, created
    name = json.loads(created)["metadata"]["name"]
    status, read = call(door, "GET", f"{collection}/{name}")
    assert status == 200, read
    return created, read


DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {"note": "plain"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                                                   "ports": [{"containerPort": 80}],
                                                   "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]}]}}},
}

PLAIN = [
    ("/api/v1/namespaces/default/configmaps",
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"z": "1", "a": "2"}}),
    ("/api/v1/namespaces/default/secrets",
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}}),
    ("/api/v1/namespaces/default/services",
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
      "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}),
    ("/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT),
    ("/api/v1/namespaces/default/pods",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"},
      "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", "echo\thi\n"]}]}}),
    ("/apis/batch/v1/namespaces/default/jobs",
     {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
      "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
]


@pytest.mark.parametrize("collection,obj", PLAIN, ids=[obj["kind"] for _, obj in PLAIN])
def test_a_create_answers_what_a_get_right_after_answers(door, collection, obj):
    created, read = created_then_read(door[0], collection, obj)
    assert created == read


@pytest.mark.parametrize("collection,obj", PLAIN, ids=[obj["kind"] for _, obj in PLAIN])
def test_plain_objects_take_the_short_way(door, collection, obj):
    cluster = door[1]
    r = _resource(cluster, collection)
    kv = next(kv for kv in cluster.api.store.range(cluster.api._prefix(r, "default")).kvs
              if json.loads(kv.value)["metadata"]["name"].startswith(obj["metadata"].get("name") or "p-"))
    uid = json.loads(kv.value)["metadata"]["uid"]
    assert stored_as_served(kv.value, r.kind, r.api_version, uid, kv.mod_revision) is not None


APPLIED = [(collection, obj) for collection, obj in PLAIN if obj["metadata"].get("name")]


@pytest.mark.parametrize("collection,obj", APPLIED, ids=[obj["kind"] for _, obj in APPLIED])
def test_a_server_side_apply_that_creates_answers_what_a_get_right_after_answers(door, collection, obj):
    name = "applied-" + obj["metadata"]["name"]
    config = {**obj, "metadata": {**obj["metadata"], "name": name}}
    status, created = call(door[0], "PATCH", f"{collection}/{name}", config, query=b"fieldManager=kubectl&force=false",
                           headers=[(b"content-type", b"application/apply-patch+yaml"),
                                    (b"accept", b"application/json")])
    assert status == 201, created
    status, read = call(door[0], "GET", f"{collection}/{name}")
    assert status == 200, read
    assert created == read
    answer = json.loads(created)
    assert answer["metadata"]["managedFields"][0]["operation"] == "Apply"
    kv = door[1].api.store.get(f"{door[1].api._prefix(_resource(door[1], collection), 'default')}{name}")
    assert stored_as_served(kv.value, answer["kind"], answer["apiVersion"], answer["metadata"]["uid"],
                            kv.mod_revision) == created  # the short way, and it gives the same bytes


def _resource(cluster, collection: str):
    plural = collection.rsplit("/", 1)[1]
    group, version = ("", "v1") if collection.startswith("/api/") else collection.split("/")[2:4]
    return cluster.registry.lookup(group, version, plural)


ESCAPED = {
    "non-ASCII": "café",
    "HTML-sensitive": "<b> & </b>",
    "a line separator": "a\u2028b",
    "a control character": "bell\x07",
    "DEL": "del\x7f",
}


@pytest.mark.parametrize("text", list(ESCAPED.values()), ids=list(ESCAPED))
def test_content_go_escapes_or_python_escapes_differently_is_answered_the_long_way(door, text):
    name = f"esc-{list(ESCAPED.values()).index(text)}"
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "annotations": {"text": text}},
           "data": {"text": text}}
    created, read = created_then_read(door[0], "/api/v1/namespaces/default/configmaps", obj)
    assert created == read
    assert json.loads(created)["data"]["text"] == text


def test_a_custom_resource_is_answered_the_long_way_with_sorted_keys(door):
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object",
                                                              "x-kubernetes-preserve-unknown-fields": True}}}]},
    }
    status, body = call(door[0], "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert status == 201, body
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
              "spec": {"zeta": 1, "alpha": {"b": 2, "a": 1}}}
    created, read = created_then_read(door[0], "/apis/example.com/v1/namespaces/default/widgets", widget)
    assert created == read
    assert list(json.loads(created)) == ["apiVersion", "kind", "metadata", "spec"]


def test_a_namespace_whose_create_reads_its_object_answers_the_same(door):
    created, read = created_then_read(door[0], "/api/v1/namespaces",
                                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    assert created == read
    assert json.loads(created)["status"] == {"phase": "Active"}


def test_pretty_and_table_answers_still_take_the_long_way(door):
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pretty"}, "data": {"a": "1"}}
    status, body = call(door[0], "POST", "/api/v1/namespaces/default/configmaps", obj, query=b"pretty=true")
    assert status == 201
    assert body.startswith(b'{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n')
    obj["metadata"]["name"] = "table"
    status, body = call(door[0], "POST", "/api/v1/namespaces/default/configmaps", obj,
                        headers=[(b"content-type", b"application/json"),
                                 (b"accept", b"application/json;as=Table;v=v1;g=meta.k8s.io")])
    assert status == 201
    assert json.loads(body)["kind"] == "Table"


def test_stored_bytes_that_are_not_as_served_are_refused():
    stored = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"u1"},"data":{}}'
    assert stored_as_served(stored, "ConfigMap", "v1", "u1", 7) == (
        b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"u1","resourceVersion":"7"},'
        b'"data":{}}\n')
    assert stored_as_served(stored, "Secret", "v1", "u1", 7) is None  # another kind served
    assert stored_as_served(stored, "ConfigMap", "v1", "u2", 7) is None  # another object's uid
    sorted_keys = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"u1"}}'
    assert stored_as_served(sorted_keys, "ConfigMap", "v1", "u1", 7) is None
    with_version = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"3","uid":"u1"}}'
    assert stored_as_served(with_version, "ConfigMap", "v1", "u1", 7) is None
    assert stored_as_served(stored.replace(b'{}}', b'{"x":"\\u00e9"}}'), "ConfigMap", "v1", "u1", 7) is None
