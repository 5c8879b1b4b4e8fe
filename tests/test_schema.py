"""Schema knowledge checked against the patch tags of the real Go types (k8s.io/api v0.32.4)."""
import json

import pytest

from kubelite import schema
from tests.conftest import CONFORMANCE

TAGS = json.loads((CONFORMANCE / "kubectl-patch" / "k8s_api_v0.32.4_patch_tags.json").read_text())


def test_deployment_fields():
    d = schema.for_kind("apps/v1", "Deployment")
    assert d.type == "object" and d.name == "io.k8s.api.apps.v1.Deployment"
    containers = d.at(["spec", "template", "spec", "containers"])
    assert containers.type == "list"
    assert containers.patch_strategy == ("merge",) and containers.merge_key == "name"
    assert containers.list_type == "map" and containers.map_keys == ("name",)
    assert containers.items().name == "io.k8s.api.core.v1.Container"
    assert d.at(["spec", "strategy"]).patch_strategy == ("retainKeys",)
    assert d.at(["spec", "template", "spec", "volumes"]).patch_strategy == ("merge", "retainKeys")
    assert d.at(["metadata", "labels"]).type == "map"
    assert d.at(["metadata", "labels", "anything"]).type == "primitive"
    assert d.at(["spec", "nonexistent"]) is None
    target = d.at(["spec", "template", "spec", "containers", "[]", "livenessProbe", "httpGet", "port"])
    assert target.type == "primitive" and target.int_or_string


def test_unknown_kind_is_none():
    assert schema.for_kind("example.com/v1", "Widget") is None
    assert schema.for_kind("v1", "Pod").name == "io.k8s.api.core.v1.Pod"


def test_versions_selectable():
    assert "1.32" in schema.available_versions()
    assert schema.builtin_definitions("1.25").for_kind("apps/v1", "Deployment") is not None
    with pytest.raises(schema.openapi.SchemaError):
        schema.builtin_definitions("0.1")


def test_preserve_unknown_fields_and_crd_schema():
    crd = schema.for_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    props = crd.at(["spec", "versions", "[]", "schema", "openAPIV3Schema", "properties"])
    assert props.type == "map"
    doc = {"definitions": {"w": {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"known": {"type": "string"}}}}}}}
    w = schema.from_openapi(doc, "w")
    assert w.at(["spec", "known"]).type == "primitive"
    assert w.at(["spec", "free", "deeper"]).type == "any"
    assert w.field("other") is None


@pytest.mark.parametrize("name", ["swagger-merge-item.json", "swagger-merge-item-v3.json"])
def test_apimachinery_test_schema(name):
    text = (CONFORMANCE / "smp" / "testdata" / name).read_text()  # v2 file has a trailing comma
    m = schema.from_openapi(text, "mergeItem")
    assert m.field("mergingList").patch_strategy == ("merge",)
    assert m.field("mergingList").merge_key == "name"
    assert m.field("mergingList").items().name == "mergeItem"
    assert m.field("nonMergingList").patch_strategy == ()
    assert m.field("mergeItemPtr").type == "object" and m.field("mergeItemPtr").merge_key == "name"
    assert m.field("retainKeysMergingList").patch_strategy == ("merge", "retainKeys")
    assert m.field("replacingItem").patch_strategy == ("replace",)
    assert m.field("simpleMap").type == "map"


def _definition_name(group_version: str, type_name: str) -> str:
    if group_version == "meta/v1":
        return f"io.k8s.apimachinery.pkg.apis.meta.v1.{type_name}"
    group, version = group_version.split("/")
    return f"io.k8s.api.{group}.{version}.{type_name}"


def test_patch_tags_agree_with_go_types():
    """Every field of the Go types has the same patchStrategy/patchMergeKey through OpenAPI."""
    defs = schema.builtin_definitions()
    checked = 0
    mismatches = []
    for group_version, types in TAGS["groups"].items():
        for type_name, fields in types.items():
            name = _definition_name(group_version, type_name)
            if name not in defs.definitions:
                continue  # Go-only helper structs (inlined), e.g. EphemeralContainerCommon
            root = defs.schema(name)
            for json_name, tag in fields.items():
                if tag.get("inline"):
                    continue
                node = root.field(json_name)
                assert node is not None, f"{name}.{json_name} missing from OpenAPI"
                want = (tuple(x for x in (tag.get("patchStrategy") or "").split(",") if x), tag.get("patchMergeKey"))
                got = (node.patch_strategy, node.merge_key)
                checked += 1
                if want != got:
                    mismatches.append((name, json_name, want, got))
    assert checked > 500
    assert mismatches == []
