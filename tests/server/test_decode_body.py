"""Request bodies decoded as kube-apiserver's strict decoder reads them: duplicated keys at any
depth (objects without any are plain dicts, made by the JSON decoder itself), unknown fields."""
from __future__ import annotations

from kubelite.server.handlers import decode
from kubelite.server.resources import Registry

CONFIGMAP = Registry().by_kind("", "v1", "ConfigMap")


def test_duplicates_are_found_under_objects_that_have_none():
    body = (b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1","x":"2"}},'
            b'"data":{"a":"b"},"data":{"c":"d","c":"e"},"bogus":1}')
    obj, unknown, duplicates = decode.decode_object(body, "application/json", CONFIGMAP)
    assert obj == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "labels": {"x": "2"}},
                   "data": {"c": "e"}}
    assert duplicates == ["data", "metadata.labels.x", "data.c"]
    assert unknown == ["bogus"]
    assert all(type(value) is dict for value in (obj, obj["metadata"], obj["metadata"]["labels"], obj["data"]))


def test_a_body_without_duplicates_decodes_to_plain_values():
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}'
    obj, unknown, duplicates = decode.decode_object(body, "application/json", CONFIGMAP)
    assert (obj, unknown, duplicates) == (
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}, [], [])
    assert type(obj) is dict and type(obj["data"]) is dict


def test_yaml_bodies_track_duplicates_too():
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
    obj, _, duplicates = decode.decode_object(body, "application/yaml", CONFIGMAP)
    assert obj["data"] == {"k": "v"} and duplicates == []
