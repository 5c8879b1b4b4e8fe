"""apimachinery's strategic merge patch test tables (tests/data/conformance/smp, see its README),
each run under the OpenAPI v2 and v3 test schemas and a schema built from the Go struct tags."""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.patch import ConflictError, PatchError
from kubelite.patch import strategic
from kubelite.schema import from_openapi

SMP = pathlib.Path(__file__).parent.parent / "data" / "conformance" / "smp"


def _table(name: str) -> dict:
    return json.loads((SMP / "tables" / f"{name}.json").read_text())


def _go_struct_schema(root: str):
    """The Go-struct back-end: an OpenAPI document built from test_types.json's field tags."""
    types = json.loads((SMP / "schema" / "test_types.json").read_text())
    return from_openapi(_struct_definitions(types), root)


def _struct_definitions(types: dict) -> dict:
    structs = types.get("types") or types
    defs = {}
    for name, fields in structs.items():
        if not isinstance(fields, dict) or "fields" not in fields:
            continue
        props = {}
        for fname, f in fields["fields"].items():
            props[fname] = _go_field(f)
        defs[name] = {"type": "object", "properties": props}
    return {"definitions": defs}


def _go_field(f: dict) -> dict:
    if "$ref" in f:
        node: dict = {"$ref": "#/definitions/" + f["$ref"]}
    elif f.get("type") == "array":
        items = f.get("items") or {}
        node = {"type": "array", "items": {"$ref": "#/definitions/" + items["$ref"]} if "$ref" in items else items}
    elif "additionalProperties" in f:
        node = {"type": "object", "additionalProperties": f["additionalProperties"]}
    elif f.get("type"):
        node = {"type": f["type"]}
    else:
        node = {}  # an untyped value (json.RawMessage-like): anything goes
    if f.get("patchStrategy"):
        node["x-kubernetes-patch-strategy"] = f["patchStrategy"]
    if f.get("patchMergeKey"):
        node["x-kubernetes-patch-merge-key"] = f["patchMergeKey"]
    return node


def _schemas(root: str, swagger: str) -> dict:
    out = {
        "openapi-v2": from_openapi((SMP / "testdata" / f"swagger-{swagger}.json").read_text(), root),
        "openapi-v3": from_openapi((SMP / "testdata" / f"swagger-{swagger}-v3.json").read_text(), root),
        "go-struct-tags": _go_struct_schema(root),
    }
    return out


SCHEMAS = _schemas("mergeItem", "merge-item")
PRECISION_SCHEMAS = _schemas("precisionItem", "precision-item")


def same_json(a, b) -> bool:
    """Go's comparison: json.Marshal bytes (keys sorted, list order significant, 1 != 1.0)."""
    return strategic.to_json(a) == strategic.to_json(b)


def _cases(name: str):
    return [pytest.param(c, id=f"{c['index']}-{c.get('description', '')[:50]}") for c in _table(name)["cases"]]


def _schema_params(schemas: dict):
    return [pytest.param(s, id=k) for k, s in schemas.items()]


@pytest.fixture(params=list(SCHEMAS), ids=list(SCHEMAS))
def schema(request):
    return SCHEMAS[request.param]


# -- sort_merge_lists: the N helper ----------------------------------------------------------


@pytest.mark.parametrize("case", _cases("sort_merge_lists"))
def test_sort_merge_lists(case, schema):
    assert strategic.to_json(strategic.sort_merge_lists(case["original"], schema)) == strategic.to_json(case["sorted"])


def N(doc, schema):
    return strategic.sort_merge_lists(doc, schema) if doc is not None else None


# -- custom patches: application only --------------------------------------------------------


@pytest.mark.parametrize("case", _cases("custom_smp"))
def test_custom_smp(case, schema):
    expected = case["twoWayResult"] if case["twoWayResult"] is not None else case["modified"]
    result = strategic.apply(N(case["original"], schema), N(case["twoWay"], schema), schema)
    assert same_json(N(result, schema), N(expected, schema))


@pytest.mark.parametrize("case", _cases("custom_smp_raw"))
def test_custom_smp_raw(case, schema):
    if case["expectedError"]:
        with pytest.raises(PatchError) as err:
            strategic.apply(case["original"], case["twoWay"], schema)
        assert case["expectedError"] in str(err.value)
        return
    expected = case["twoWayResult"] if case["twoWayResult"] is not None else case["modified"]
    assert same_json(strategic.apply(case["original"], case["twoWay"], schema), expected)


# -- creation + application ------------------------------------------------------------------


def _check_two_way(c, schema):
    patch = strategic.create_two_way(c["original"], c["modified"], schema)
    assert same_json(patch, c["twoWay"]), strategic.to_json(patch)
    expected = c["twoWayResult"] if c["twoWayResult"] is not None else c["modified"]
    assert same_json(strategic.apply(c["original"], patch, schema), expected)


def _check_three_way(c, expect_conflict, schema):
    if expect_conflict:
        with pytest.raises(ConflictError):
            strategic.create_three_way(c["original"], c["modified"], c["current"], schema, overwrite=False)
        patch = strategic.create_three_way(c["original"], c["modified"], c["current"], schema, overwrite=True)
    else:
        patch = strategic.create_three_way(c["original"], c["modified"], c["current"], schema, overwrite=False)
    assert c["result"]
    assert same_json(patch, c["threeWay"]), strategic.to_json(patch)
    assert same_json(strategic.apply(c["current"], patch, schema), c["result"])


@pytest.mark.parametrize("case", _cases("create_smp"))
def test_create_smp_two_way(case, schema):
    _check_two_way(_normalized(case, schema), schema)


@pytest.mark.parametrize("case", _cases("create_smp"))
def test_create_smp_three_way(case, schema):
    _check_three_way(_normalized(case, schema), case["expect_conflict"], schema)


def _normalized(case, schema):
    fields = ("original", "modified", "current", "twoWay", "threeWay", "result", "twoWayResult")
    return {f: N(case.get(f), schema) for f in fields}


@pytest.mark.parametrize("case", _cases("smp_raw") + _cases("replace_raw_extension"))
def test_smp_raw_two_way(case, schema):
    for _ in range(3):  # Go repeats to vary map order; our output must not vary either
        _check_two_way(case, schema)


@pytest.mark.parametrize("case", _cases("smp_raw") + _cases("replace_raw_extension"))
def test_smp_raw_three_way(case, schema):
    _check_three_way(case, case.get("expect_conflict", False), schema)


def test_normalized_data_agrees_with_our_port():
    """The README's `normalized` values (from a Python port of the Go helper) equal ours."""
    for name in ("custom_smp", "create_smp"):
        for case in _table(name)["cases"]:
            for field, value in case["normalized"].items():
                for s in SCHEMAS.values():
                    assert same_json(N(case[field], s), value), (name, case["index"], field)


# -- exact text ------------------------------------------------------------------------------


@pytest.mark.parametrize("schema_", _schema_params(PRECISION_SCHEMAS))
@pytest.mark.parametrize("case", _cases("number_conversion"))
def test_number_conversion(case, schema_):
    patch = strategic.create_two_way(case["old"], case["new"], schema_)
    assert strategic.to_json(patch) == case["expectedPatch"]
    result = strategic.apply(case["old"], strategic.to_json(patch), schema_)
    assert strategic.to_json(result) == case["expectedResult"]


@pytest.mark.parametrize("case", _cases("unknown_field"))
def test_unknown_field(case, schema):
    def run(create, target, expected, expected_err, expected_result):
        try:
            patch = create()
        except PatchError as err:
            assert expected_err and expected_err in str(err)
            return
        assert strategic.to_json(patch) == expected
        assert strategic.to_json(strategic.apply(target, patch, schema)) == expected_result

    c = case
    run(lambda: strategic.create_two_way(c["original"], c["modified"], schema), c["original"],
        c["expectedTwoWay"], c["expectedTwoWayErr"], c["expectedTwoWayResult"])
    run(lambda: strategic.create_three_way(c["original"], c["modified"], c["current"], schema, overwrite=False),
        c["current"], c["expectedThreeWay"], c["expectedThreeWayErr"], c["expectedThreeWayResult"])


@pytest.mark.parametrize("case", _cases("smp_bad_arguments"))
def test_bad_arguments(case, schema):
    if case["go_specific"]:
        pytest.skip("tests Go's reflection-based schema constructor (no Python counterpart)")
    with pytest.raises(PatchError) as err:
        strategic.apply(case["original"], case["patch"], schema)
    assert str(err.value) == case["expectedError"]
