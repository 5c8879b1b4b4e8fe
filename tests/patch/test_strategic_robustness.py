"""Bad and extreme input: every failure is a PatchError naming where it happened; nothing else
escapes; inputs are never modified; realistic depths and sizes work."""
from __future__ import annotations

import copy
import json

import pytest

from kubelite.patch import PatchError
from kubelite.patch import strategic
from kubelite.schema import for_kind

SCHEMA = for_kind("apps/v1", "Deployment")


def _nested(depth: int, key: str = "spec") -> dict:
    root: dict = {}
    node = root
    for _ in range(depth):
        node[key] = {}
        node = node[key]
    return root


def _pod(containers):
    return {"spec": {"template": {"spec": {"containers": containers}}}}


@pytest.mark.parametrize("call", [
    lambda d: strategic.apply(d, d, SCHEMA),
    lambda d: strategic.create_two_way(d, {}, SCHEMA),
    lambda d: strategic.create_two_way({}, d, SCHEMA),
    lambda d: strategic.create_three_way(d, {}, d, SCHEMA),
    lambda d: strategic.to_json(d),
], ids=["apply", "two-way-original", "two-way-modified", "three-way", "to_json"])
def test_depth_ten_thousand_is_a_patch_error_or_works(call):
    doc = _nested(10_000)
    try:
        call(doc)
    except PatchError:
        pass


def test_deep_json_text_is_invalid_document():
    text = '{"a":' + "[" * 10_000 + "]" * 10_000 + "}"
    with pytest.raises(PatchError, match="invalid JSON document"):
        strategic.apply("{}", text, SCHEMA)


def test_realistic_depth_works():
    # Unknown to the schema, so it is only ever taken whole; depth 150 must still work.
    doc = {"metadata": {"annotations": {"x": "1"}}, "spec": {"template": {"spec": {"containers": []}}}}
    patch = {"metadata": {"annotations": {"y": "2"}}, "status": _nested(150, "a")}
    result = strategic.apply(doc, patch, SCHEMA)
    assert result["metadata"]["annotations"] == {"x": "1", "y": "2"}
    assert strategic.create_two_way(doc, result, SCHEMA)["status"] == patch["status"]


@pytest.mark.parametrize("doc,patch,where", [
    (_pod([{"name": "a"}]), {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}},
     "spec.template.spec.containers"),
    (_pod([{"name": "a"}]), {"spec": {"template": {"spec": {"containers": [{"name": "a", "$patch": "frob"}]}}}},
     "spec.template.spec.containers"),
    (_pod([{"name": "a"}]), {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "z"}],
                                                          "containers": [{"name": "b"}]}}}},
     "spec.template.spec.containers"),
    ({"metadata": {"finalizers": ["a"]}}, {"metadata": {"finalizers": [{"a": 1}]}}, "metadata.finalizers"),
    ({"spec": {"strategy": {"type": "x"}}}, {"spec": {"strategy": {"$retainKeys": "type"}}}, "spec.strategy"),
    ({"spec": {"unknownThing": {"a": 1}}}, {"spec": {"unknownThing": {"a": 2}}}, "spec.unknownThing"),
])
def test_errors_name_the_field_path(doc, patch, where):
    with pytest.raises(PatchError) as err:
        strategic.apply(doc, patch, SCHEMA)
    assert where in str(err.value)


@pytest.mark.parametrize("doc,patch", [
    ("not json", "{}"),
    ("{}", "<THIS IS NOT JSON>"),
    ("[1, 2]", "{}"),
    ("{}", "[]"),
    ("{}", '{"a": NaN}'),
    ([1], {}),
    ({}, 5),
    (b"\xff\xfe", "{}"),
])
def test_not_a_json_object(doc, patch):
    with pytest.raises(PatchError, match="^invalid JSON document$"):
        strategic.apply(doc, patch, SCHEMA)


@pytest.mark.parametrize("patch", [
    {"spec": [1]},
    {"spec": {"template": {"spec": {"containers": {"name": "a"}}}}},
    {"spec": {"template": {"spec": {"containers": [[1]]}}}},
    {"spec": {"template": {"spec": {"containers": [None]}}}},
    {"spec": {"template": {"spec": {"containers": ["a"]}}}},
    {"spec": {"template": {"spec": {"$setElementOrder/containers": "x", "containers": []}}}},
    {"spec": {"template": {"spec": {"$setElementOrder/containers": [1], "containers": [{"name": "a"}]}}}},
    {"spec": {"template": {"spec": {"$deleteFromPrimitiveList/containers": [{"name": "a"}]}}}},
    {"spec": {"template": {"spec": {"containers": [{"name": {"deep": [1]}, "image": "x"}]}}}},
    {"metadata": {"$retainKeys": [1, None, {"a": 1}], "labels": None}},
    {"$patch": None},
    {"spec": {"$patch": ["delete"]}},
])
def test_odd_patches_never_escape_as_other_errors(patch):
    doc = _pod([{"name": "a", "image": "i", "args": ["x"]}, {"name": "a", "image": "dup"}])
    before = copy.deepcopy(doc)
    patch_before = copy.deepcopy(patch)
    try:
        strategic.apply(doc, patch, SCHEMA)
    except PatchError:
        pass
    for create in (strategic.create_two_way, lambda a, b, s: strategic.create_three_way(a, b, a, s, overwrite=False)):
        try:
            create(doc, patch, SCHEMA)
        except PatchError:
            pass
    assert doc == before and patch == patch_before


def test_inputs_are_not_modified():
    original = {"metadata": {"finalizers": ["b", "a"]}, **_pod([{"name": "b"}, {"name": "a", "env": [{"name": "X"}]}])}
    modified = {"metadata": {"finalizers": ["c"]}, **_pod([{"name": "a", "image": "x"}])}
    current = copy.deepcopy(original)
    snapshot = json.dumps([original, modified, current])
    patch = strategic.create_three_way(original, modified, current, SCHEMA)
    snapshot_patch = json.dumps(patch)
    strategic.apply(current, patch, SCHEMA)
    strategic.create_two_way(original, modified, SCHEMA)
    assert json.dumps([original, modified, current]) == snapshot
    assert json.dumps(patch) == snapshot_patch


def test_huge_document():
    containers = [{"name": f"c{i}", "image": "x", "env": [{"name": f"E{j}", "value": "v"} for j in range(10)]}
                  for i in range(3000)]
    doc = _pod(containers)
    modified = copy.deepcopy(doc)
    modified["spec"]["template"]["spec"]["containers"][1500]["image"] = "y"
    modified["spec"]["template"]["spec"]["containers"].reverse()
    patch = strategic.create_two_way(doc, modified, SCHEMA)
    assert strategic.to_json(strategic.apply(doc, patch, SCHEMA)) == strategic.to_json(modified)


def test_schema_none_is_json_merge_patch():
    doc = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert strategic.apply(doc, {"a": {"b": None, "c": [3]}}, None) == {"a": {"c": [3]}, "d": 1}
    assert strategic.create_two_way(doc, {"a": {"c": [1, 2]}}, None) == {"a": {"b": None}, "d": None}
    assert strategic.create_three_way({"x": 1}, {"y": 2}, {"x": 1, "z": 3}, None) == {"x": None, "y": 2}
