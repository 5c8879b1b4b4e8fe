"""goorder against bodies a real kube-apiserver 1.32.13 wrote (tests/data/reference/apiserver).

Every recorded response body is in Go's encoding/json order, so reordering a body whose keys were
reversed at every depth must give back the recorded key sequence exactly. FieldsV1 and embedded
objects (RawExtension) marshal themselves and keep their order, so they are not reversed.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.schema import goorder

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver"
SELF_MARSHALLED = frozenset({"fieldsV1", "object"})


def _bodies():
    paths = sorted(REF.glob("defaults/*.get.raw.json"))
    for folder in ("errors", "lists", "meta", "subresources", "watch"):
        paths += sorted(REF.glob(f"{folder}/*.body.json"))
    paths += sorted(REF.glob("tables/*.table-includeObject-*.json"))
    cases = []
    for path in paths:
        body = json.loads(path.read_text())
        if isinstance(body, dict) and "kind" in body and "apiVersion" in body:
            cases.append(pytest.param(body, id=f"{path.parent.name}/{path.name}"))
    return cases


def _events():
    cases = []
    for path in sorted(REF.glob("watch/*.events.jsonl")):
        for i, line in enumerate(path.read_text().splitlines()):
            obj = json.loads(line).get("object")
            if isinstance(obj, dict) and "kind" in obj:
                cases.append(pytest.param(obj, id=f"{path.name}:{i}"))
    return cases


def _reversed(value):
    if isinstance(value, dict):
        return {k: value[k] if k in SELF_MARSHALLED else _reversed(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def _pairs(value) -> str:
    """The exact key sequence, as compact JSON text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


BODIES = _bodies()
EVENTS = _events()


def test_corpus_is_large():
    assert len(BODIES) > 300
    assert len(EVENTS) > 30


@pytest.mark.parametrize("body", BODIES + EVENTS)
def test_reversed_body_comes_back_in_server_order(body):
    if goorder.is_builtin(body["apiVersion"], body["kind"]):
        got = goorder.order(_reversed(body))
    else:
        # custom resources are unstructured: Go writes their maps with sorted keys
        got = goorder.sorted_keys(_reversed(body))
    assert _pairs(got) == _pairs(body)


@pytest.mark.parametrize("body", BODIES + EVENTS)
def test_recorded_order_is_kept(body):
    assert _pairs(goorder.order(body)) == _pairs(body)


def test_deployment_spec_replicas_before_template():
    obj = {"spec": {"template": {"spec": {"containers": [{"image": "i", "name": "c"}]}}, "replicas": 1},
           "metadata": {"labels": {"b": "1", "a": "2"}, "name": "d"}, "apiVersion": "apps/v1", "kind": "Deployment"}
    got = goorder.order(obj)
    assert _pairs(got) == (
        '{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d","labels":{"a":"2","b":"1"}},'
        '"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
    assert list(obj["spec"]) == ["template", "replicas"]  # the input is not changed


def test_explicit_kind_and_unknown_fields_last():
    got = goorder.order({"zz": 1, "data": {"y": "1", "x": "2"}, "metadata": {}}, "v1", "ConfigMap")
    assert list(got) == ["metadata", "data", "zz"]
    assert list(got["data"]) == ["x", "y"]


@pytest.mark.parametrize("api_version,kind", [("rc.example.com/v1", "Widget"), ("v1", "NoSuchKind"),
                                              (None, None), ("apps/v1", 3)])
def test_unknown_kinds_keep_their_order(api_version, kind):
    obj = {"spec": {"b": 1, "a": 2}, "kind": kind, "apiVersion": api_version}
    assert goorder.order(obj) is obj


def test_non_object_values_pass_through():
    assert goorder.order("text", "v1", "ConfigMap") == "text"
    assert goorder.order({"metadata": "not-an-object", "data": ["x"]}, "v1", "ConfigMap") == \
        {"metadata": "not-an-object", "data": ["x"]}


def test_meta_kinds_under_any_builtin_group_version():
    assert goorder.struct_name("v1", "Status") == "k8s.io.apimachinery.pkg.apis.meta.v1.Status"
    assert goorder.struct_name("meta.k8s.io/v1", "Table") == "k8s.io.apimachinery.pkg.apis.meta.v1.Table"
    assert goorder.struct_name("apps/v1", "Deployment") == "k8s.io.api.apps.v1.Deployment"
    assert goorder.struct_name("apiextensions.k8s.io/v1", "CustomResourceDefinition") is not None


def test_schema_properties_are_maps_of_schemas():
    schema = {"type": "object", "properties": {"b": {"type": "string", "description": "d"}, "a": {"type": "integer"}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "spec": {"versions": [{"schema": {"openAPIV3Schema": schema}, "name": "v1"}]}}
    got = goorder.order(crd)["spec"]["versions"][0]
    assert list(got) == ["name", "schema"]
    assert _pairs(got["schema"]["openAPIV3Schema"]["properties"]) == \
        '{"a":{"type":"integer"},"b":{"description":"d","type":"string"}}'


DATA = pathlib.Path(goorder.__file__).parent / "data" / "go_field_order.json"


def test_the_data_file_is_in_the_layout_its_reader_parses_lazily():
    """The data file holds a struct per line (goorder.dumps): the reader parses a struct when a
    command first orders one. Read whole or line by line, it is the same document."""
    raw = DATA.read_bytes()
    document = json.loads(raw)
    assert goorder.dumps(document).encode() == raw
    tables = goorder._load(raw)
    assert all(isinstance(text, bytes) for text in tables.layouts._types.values())
    assert tables.groups == document["groups"] and set(tables.layouts._types) == set(document["types"])
    whole = goorder._Tables(document["groups"], document["types"])
    for name in document["types"]:
        assert tables.layouts[name] == whole.layouts[name], name


def test_another_layout_of_the_same_document_still_loads():
    document = json.loads(DATA.read_bytes())
    tables = goorder._load(json.dumps(document, indent=1).encode())
    name = "k8s.io.api.core.v1.Pod"
    assert tables.layouts[name] == goorder._load(DATA.read_bytes()).layouts[name]
