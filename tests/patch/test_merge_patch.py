"""kubelite.patch.merge_patch against RFC 7386's examples, the same examples run through the
real kubectl (kubectl_compat), apimachinery's three-way JSON merge patch tables, and properties."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.patch import PatchError, merge_patch
from tests.conftest import CONFORMANCE

MERGEPATCH = CONFORMANCE / "mergepatch"


def _cases(path, key="index"):
    data = json.loads(path.read_text())
    return [pytest.param(case, id=str(case[key])) for case in data["cases"]]


@pytest.mark.parametrize("case", _cases(MERGEPATCH / "rfc7386.json", "id"))
def test_rfc7386_examples(case):
    target, patch = copy.deepcopy(case["target"]), copy.deepcopy(case["patch"])
    assert merge_patch.apply(target, patch) == case["result"]
    assert (target, patch) == (case["target"], case["patch"]), "an input was modified"


@pytest.mark.parametrize(
    "case", _cases(CONFORMANCE / "kubectl-patch" / "rfc7386_via_kubectl.json", "id"))
def test_rfc7386_examples_through_kubectl(case):
    assert case["exit_code"] == 0
    patched = merge_patch.apply(case["wrapped_original"], json.loads(case["wrapped_patch_text"]),
                                kubectl_compat=True)
    assert patched == json.loads(case["stdout"])


@pytest.mark.parametrize("case", _cases(MERGEPATCH / "k8s_jsonmergepatch_threeway.json"))
def test_three_way_json_merge_patch(case):
    original = case.get("original")  # "nil original": a missing document counts as {}
    for overwrite in (True, False):  # apimachinery always checks conflicts; these all pass
        patch = merge_patch.create_three_way(original, case["modified"], case["current"],
                                             overwrite=overwrite)
        assert patch == case["threeWay"]
    assert merge_patch.apply(case["current"], patch) == case["result"]


@pytest.mark.parametrize("case", _cases(MERGEPATCH / "k8s_jsonmergepatch_keep_or_delete_null.json"))
def test_keep_or_delete_null(case):
    obj = case["originalObj"]
    assert merge_patch.keep_or_delete_null(obj, keep_null=True) == case["expectedWithNull"]
    assert merge_patch.keep_or_delete_null(obj, keep_null=False) == case["expectedWithoutNull"]


def test_create_examples_from_the_rfc():
    """create() recovers each RFC example's patch from target and result, where it can: the
    patch is minimal there, except for nulls deleting members that were absent anyway."""
    for case in json.loads((MERGEPATCH / "rfc7386.json").read_text())["cases"]:
        created = merge_patch.create(case["target"], case["result"])
        assert merge_patch.apply(case["target"], created) == case["result"]


def test_create_replaces_lists_and_nulls_removed_members():
    original = {"a": [1, 2], "b": {"c": 1, "d": 2}, "e": 1, "f": {"g": 1}}
    modified = {"a": [1], "b": {"c": 1}, "f": {"g": 1}, "h": {}}
    assert merge_patch.create(original, modified) == {"a": [1], "b": {"d": None}, "e": None,
                                                      "h": {}}


# ---- kubectl variant: errors of the library --------------------------------------------------

@pytest.mark.parametrize("patch", [None, "bar", 5, True])
def test_compat_top_level_patch_must_be_object_or_array(patch):
    with pytest.raises(PatchError, match="^Invalid JSON Patch$"):
        merge_patch.apply({"a": 1}, patch, kubectl_compat=True)


def test_compat_null_document():
    with pytest.raises(PatchError, match="^Invalid JSON Document$"):
        merge_patch.apply(None, {"a": 1}, kubectl_compat=True)


# ---- deep and bad input ----------------------------------------------------------------------

def _nested(depth: int) -> dict:
    doc: dict = {}
    node = doc
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return doc


def test_rfc_functions_handle_depth_10000():
    deep, deeper = _nested(10_000), _nested(10_001)
    assert merge_patch.create(deep, deeper) is not None
    patched = merge_patch.apply(deep, merge_patch.create(deep, deeper))
    node = patched
    for _ in range(10_000):
        node = node["a"]
    assert node == {"a": {}}


@pytest.mark.parametrize("call", [
    lambda d: merge_patch.apply(d, d, kubectl_compat=True),
    lambda d: merge_patch.create(d, {}, kubectl_compat=True),
    lambda d: merge_patch.create_three_way(d, {"b": d}, d),
    lambda d: merge_patch.keep_or_delete_null(d, True),
])
def test_kubectl_functions_on_depth_10000_raise_patch_error(call):
    deep = _nested(10_000)
    try:
        result = call(deep)
    except PatchError as error:
        assert "deeply nested" in str(error) and error.path is not None
    else:
        assert isinstance(result, dict)


@pytest.mark.parametrize("bad", ["original", "modified", "current"])
def test_three_way_rejects_non_objects(bad):
    documents = {"original": {}, "modified": {}, "current": {}, bad: ["x"]}
    with pytest.raises(PatchError, match=bad):
        merge_patch.create_three_way(**documents)


# ---- properties ------------------------------------------------------------------------------

scalars = st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
values_without_null = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=3), inner, max_size=3), max_leaves=10)
values = st.recursive(
    st.none() | scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=3), inner, max_size=3), max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(a=st.dictionaries(st.text(max_size=3), values, max_size=4),
       b=st.dictionaries(st.text(max_size=3), values_without_null, max_size=4))
def test_apply_of_create_gives_modified(a, b):
    # b has no null members: a merge patch cannot set a member to null (null means "delete"),
    # so for a b holding nulls no patch exists. a may hold nulls: they are simply removed or
    # replaced. Nulls inside lists would be fine (lists are copied whole) but the strategy keeps
    # them out of b altogether, for simplicity.
    patch = merge_patch.create(a, b)
    assert merge_patch.apply(a, patch) == b
    assert merge_patch.apply(a, merge_patch.create(a, b, kubectl_compat=True)) == b
    assert merge_patch.create(b, b) == {}


@settings(max_examples=300, deadline=None)
@given(original=st.dictionaries(st.text(max_size=2), values, max_size=4),
       modified=st.dictionaries(st.text(max_size=2), values_without_null, max_size=4),
       current=st.dictionaries(st.text(max_size=2), values, max_size=4))
def test_three_way_makes_current_like_modified(original, modified, current):
    """Applied to current, the three-way patch sets every member of modified (lists whole);
    members of original that modified dropped are gone; conflicts never arise for objects."""
    patch = merge_patch.create_three_way(original, modified, current, overwrite=False)
    result = merge_patch.apply(current, patch)
    for key, value in modified.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            assert merge_patch.apply(result[key], value) == result[key]
        else:
            assert result[key] == value
    for key in original.keys() - modified.keys():
        assert key not in result


# ---- differential: kubectl_compat against the real kubectl ----------------------------------

_KEYS = ["a", "b", "c", "d"]


def _random_value(rng, depth: int = 0, nulls: bool = True) -> object:
    roll = rng.random()
    if depth >= 3 or roll < 0.45:
        return rng.choice([None, True, 0, 3, "s", ""] if nulls else [True, 0, 3, "s", ""])
    if roll < 0.7:
        return [_random_value(rng, depth + 1, nulls) for _ in range(rng.randint(0, 3))]
    return {rng.choice(_KEYS): _random_value(rng, depth + 1, nulls)
            for _ in range(rng.randint(0, 3))}


def _differential_pairs(seed: int, count: int) -> list[tuple[dict, str]]:
    import random

    rng = random.Random(seed)
    pairs = []
    for index in range(count):
        spec = {rng.choice(_KEYS): _random_value(rng) for _ in range(rng.randint(1, 4))}
        patch = {rng.choice(_KEYS): _random_value(rng) for _ in range(rng.randint(1, 4))}
        obj = {"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": f"w{index}"}, "spec": spec}
        pairs.append((obj, json.dumps({"spec": patch})))
    # Where the library departs from the RFC (nulls inside arrays that are added).
    quirks = [({"a": 1}, {"a": [{"b": None, "c": 1}, None]}),
              ({}, {"a": [{"b": None}]}),
              ({"a": {"x": 1}}, {"a": [{"b": None}]}),
              ({"a": [1]}, {"a": {"b": [{"c": None}], "d": None}})]
    for index, (spec, patch) in enumerate(quirks):
        obj = {"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": f"q{index}"}, "spec": spec}
        pairs.append((obj, json.dumps({"spec": patch})))
    return pairs


@pytest.mark.kubectl
def test_differential_against_kubectl():
    from tests.patch.kubectl_oracle import KUBECTL, run_patches

    if not KUBECTL.exists():
        pytest.skip("/usr/bin/kubectl is not installed")
    pairs = _differential_pairs(20240602, 30)
    outcomes = run_patches(pairs, "merge")
    failures = []
    for (obj, patch_text), outcome in zip(pairs, outcomes):
        mine = merge_patch.apply(obj, json.loads(patch_text), kubectl_compat=True)
        if outcome.exit_code != 0 or outcome.object != mine:
            failures.append((obj["spec"], patch_text, outcome, mine))
    assert not failures, failures[:3]
