"""Properties of strategic merge patch on schema-typed random Deployments (hypothesis)."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.patch import strategic
from kubelite.schema import for_kind

from tests.conftest import DATA

SCHEMA = for_kind("apps/v1", "Deployment")
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["app", "sidecar", "proxy", "log", "init", "metrics"]
ENV = ["A", "B", "C", "D", "E"]
FINALIZERS = ["f/a", "f/b", "f/c", "f/d"]
small_text = st.sampled_from(["x", "y", "z", "1", ""])


@st.composite
def containers(draw):
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    out = []
    for name in names:
        c = {"name": name, "image": draw(st.sampled_from(["nginx:1", "nginx:2", "envoy:1"]))}
        if draw(st.booleans()):
            env_names = draw(st.lists(st.sampled_from(ENV), unique=True, max_size=4))
            c["env"] = [{"name": n, "value": draw(small_text)} for n in env_names]
        if draw(st.booleans()):
            ports = draw(st.lists(st.integers(80, 85), unique=True, max_size=3))
            c["ports"] = [{"containerPort": p, "protocol": "TCP"} for p in ports]
        if draw(st.booleans()):
            c["args"] = draw(st.lists(small_text, max_size=3))
        out.append(c)
    return out


@st.composite
def volumes(draw):
    """Volumes are merged by name and carry retainKeys: switching source must drop the old one."""
    out = []
    for name in draw(st.lists(st.sampled_from(["data", "cfg", "tmp"]), unique=True, max_size=3)):
        source = draw(st.sampled_from([
            {"emptyDir": {}},
            {"emptyDir": {"medium": "Memory"}},
            {"configMap": {"name": "cm"}},
            {"hostPath": {"path": "/tmp", "type": "Directory"}},
        ]))
        out.append({"name": name, **copy.deepcopy(source)})
    return out


@st.composite
def deployments(draw):
    meta: dict = {"name": "web"}
    if draw(st.booleans()):
        meta["labels"] = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), small_text, max_size=3))
    if draw(st.booleans()):
        meta["annotations"] = draw(st.dictionaries(st.sampled_from(["n1", "n2"]), small_text, max_size=2))
    if draw(st.booleans()):
        meta["finalizers"] = draw(st.lists(st.sampled_from(FINALIZERS), unique=True, max_size=4))
    pod: dict = {"containers": draw(containers())}
    if draw(st.booleans()):
        pod["volumes"] = draw(volumes())
    if draw(st.booleans()):
        pod["tolerations"] = [{"key": k, "operator": "Exists"}
                              for k in draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3))]
    spec: dict = {"template": {"spec": pod}}
    if draw(st.booleans()):
        spec["replicas"] = draw(st.integers(0, 5))
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def _sorted_reorder_is_dropped(original: dict, modified: dict) -> dict:
    """What a two-way patch (original -> modified), or a three-way patch against an unchanged
    live object, makes of `original`.

    It is `modified`, with one exception recorded from kubectl (tests/data/patch): apimachinery
    sorts the original (and current) merging scalar list in place before comparing it with
    `modified`, so when the modified finalizers are exactly the sorted original finalizers and
    the original ones are not sorted, the patch carries no $setElementOrder and the object keeps
    the original order. Any other change to the list, a reorder into an unsorted order
    included, sets the modified order. (Finalizers are the only merging scalar list generated
    here; Go sorts scalars by their fmt %v text, which for these names is Python's order.)"""
    expected = copy.deepcopy(modified)
    before = original["metadata"].get("finalizers")
    after = modified["metadata"].get("finalizers")
    if before and after == sorted(before) != before:
        expected["metadata"]["finalizers"] = before
    return expected


@SETTINGS
@given(deployments(), deployments())
def test_two_way_round_trip(a, b):
    patch = strategic.create_two_way(a, b, SCHEMA)
    assert strategic.to_json(strategic.apply(a, patch, SCHEMA)) == strategic.to_json(
        _sorted_reorder_is_dropped(a, b))


@SETTINGS
@given(deployments(), deployments())
def test_two_way_round_trip_up_to_finalizer_order(a, b):
    result = strategic.apply(a, strategic.create_two_way(a, b, SCHEMA), SCHEMA)
    assert strategic.to_json(strategic.sort_merge_lists(result, SCHEMA)) == strategic.to_json(
        strategic.sort_merge_lists(b, SCHEMA))


@SETTINGS
@given(deployments(), deployments())
def test_two_way_patch_of_identical_documents_changes_nothing(a, _):
    patch = strategic.create_two_way(a, copy.deepcopy(a), SCHEMA)
    # apimachinery sorts the original primitive list in place before comparing it, so an
    # unsorted merging list of scalars (finalizers) yields a $setElementOrder even when
    # nothing changed (recorded: kubectl edit's "f/b,f/a->f/b,f/a" case); nothing else may appear.
    finalizers = a["metadata"].get("finalizers")
    if finalizers and finalizers != sorted(finalizers):
        assert patch == {"metadata": {"$setElementOrder/finalizers": finalizers}}
    else:
        assert patch == {}
    assert strategic.to_json(strategic.apply(a, patch, SCHEMA)) == strategic.to_json(a)


def _live(original: dict, data) -> dict:
    """`original` as the server holds it: defaults and status only the server sets."""
    live = copy.deepcopy(original)
    live["metadata"]["uid"] = "1234"
    live["metadata"].setdefault("annotations", {})["server/rev"] = "7"
    live["status"] = {"replicas": 1}
    live["spec"].setdefault("replicas", 1)
    for c in live["spec"]["template"]["spec"]["containers"]:
        c["terminationMessagePath"] = "/dev/termination-log"
    if data.draw(st.booleans()):
        live["spec"]["template"]["spec"]["containers"].append({"name": "injected", "image": "mesh:1"})
    return live


def _expected(original: dict, modified: dict, live: dict) -> dict:
    """What applying the three-way patch must give: modified, plus what only the server added."""
    out = copy.deepcopy(modified)
    out["status"] = live["status"]
    out["metadata"]["uid"] = live["metadata"]["uid"]
    if "annotations" in modified["metadata"] or "annotations" not in original["metadata"]:
        out["metadata"].setdefault("annotations", {})["server/rev"] = "7"
    if "replicas" not in modified["spec"] and "replicas" not in original["spec"]:
        out["spec"]["replicas"] = live["spec"]["replicas"]
    live_names = {c["name"] for c in live["spec"]["template"]["spec"]["containers"]}
    for c in out["spec"]["template"]["spec"]["containers"]:
        if c["name"] in live_names:
            c["terminationMessagePath"] = "/dev/termination-log"
    original_names = {c["name"] for c in original["spec"]["template"]["spec"]["containers"]}
    for c in live["spec"]["template"]["spec"]["containers"]:
        if c["name"] not in original_names and c["name"] not in {x["name"] for x in out["spec"]["template"]["spec"]["containers"]}:
            out["spec"]["template"]["spec"]["containers"].append(c)
    return out


@SETTINGS
@given(deployments(), deployments(), st.data())
def test_three_way_keeps_server_fields_and_takes_modified_values(original, modified, data):
    live = _live(original, data)
    patch = strategic.create_three_way(original, modified, live, SCHEMA)
    result = strategic.apply(live, patch, SCHEMA)
    normalized = strategic.sort_merge_lists(result, SCHEMA)
    assert strategic.to_json(normalized) == strategic.to_json(
        strategic.sort_merge_lists(_expected(original, modified, live), SCHEMA))


@SETTINGS
@given(deployments(), deployments())
def test_three_way_with_unchanged_live_object_equals_two_way_result(original, modified):
    patch = strategic.create_three_way(original, modified, original, SCHEMA, overwrite=False)
    assert strategic.to_json(strategic.apply(original, patch, SCHEMA)) == strategic.to_json(
        _sorted_reorder_is_dropped(original, modified))


@SETTINGS
@given(deployments(), deployments())
def test_three_way_with_unchanged_live_object_sets_modified_up_to_finalizer_order(original, modified):
    patch = strategic.create_three_way(original, modified, original, SCHEMA, overwrite=False)
    result = strategic.apply(original, patch, SCHEMA)
    assert strategic.to_json(strategic.sort_merge_lists(result, SCHEMA)) == strategic.to_json(
        strategic.sort_merge_lists(modified, SCHEMA))


# -- finalizer order, as recorded from real kubectl ------------------------------------------

RECORDED = json.loads((DATA / "patch" / "kubectl_finalizer_order.json").read_text())
APPLY_CASES = RECORDED["apply_cases"]
EDIT_CASES = RECORDED["edit_cases"]


def _order(before: dict, after: dict) -> str:
    return "{}->{}".format(",".join(before["metadata"].get("finalizers") or []),
                           ",".join(after["metadata"].get("finalizers") or ["none"]))


def _apply_id(case: dict) -> str:
    return _order(case["last_applied"], case["modified"])


def _edit_id(case: dict) -> str:
    return _order(case["edited_from"], case["edited_to"])


def test_recorded_cases_cover_the_sorted_reorder():
    """The data must hold the case the properties make an exception for, and its converse."""
    needed = {"f/a,f/b,f/d,f/c->f/a,f/b,f/c,f/d", "f/a,f/b->f/b,f/a", "f/b,f/a->f/b,f/a"}
    assert needed <= {_apply_id(case) for case in APPLY_CASES}
    assert needed <= {_edit_id(case) for case in EDIT_CASES}


@pytest.mark.parametrize("case", EDIT_CASES, ids=_edit_id)
def test_two_way_patch_equals_kubectl_edit_patch(case):
    patch = strategic.create_two_way(case["edited_from"], case["edited_to"], SCHEMA)
    assert patch == case["kubectl_edit_patch"]
    result = strategic.to_json(strategic.apply(case["edited_from"], patch, SCHEMA))
    assert result == strategic.to_json(case["kubectl_patch_local_result"])
    # the exception the round-trip property makes is exactly what kubectl does
    assert result == strategic.to_json(_sorted_reorder_is_dropped(case["edited_from"], case["edited_to"]))


@pytest.mark.parametrize("case", APPLY_CASES, ids=_apply_id)
def test_three_way_patch_equals_kubectl_apply_request(case):
    """kubectl apply's three-way patch: last applied configuration, modified (carrying its new
    last-applied annotation), live object as read from the server."""
    patch = strategic.create_three_way(case["last_applied"], case["modified"], case["live"], SCHEMA)
    assert patch == case["kubectl_apply_patch"]


@pytest.mark.parametrize("case", APPLY_CASES, ids=_apply_id)
def test_kubectl_apply_request_applies_as_kubectl_patch_local(case):
    result = strategic.apply(case["live"], case["kubectl_apply_patch"], SCHEMA)
    assert strategic.to_json(result) == strategic.to_json(case["kubectl_patch_local_result"])


def test_hypothesis_counterexample_keeps_unsorted_finalizers():
    """Found by test_three_way_with_unchanged_live_object_equals_two_way_result (and
    test_two_way_round_trip) before their exception: reordering unsorted finalizers into sorted order patches nothing, as kubectl
    apply does (the first recorded case), and the object keeps its order."""
    example = RECORDED["counterexample"]
    original, modified = example["original"], example["modified"]
    patch = strategic.create_three_way(original, modified, original, SCHEMA, overwrite=False)
    assert patch == example["patch"] == {}
    assert strategic.create_two_way(original, modified, SCHEMA) == {}  # as kubectl edit's first case
    result = strategic.apply(original, patch, SCHEMA)
    assert strategic.to_json(result) == strategic.to_json(example["kubectl_patch_local_result"])
    assert result["metadata"]["finalizers"] == ["f/a", "f/b", "f/d", "f/c"] != modified["metadata"]["finalizers"]


@SETTINGS
@given(deployments(), deployments(), st.data(), st.booleans())
def test_three_way_leaves_its_inputs_and_disposable_copies_give_the_same_patch(original, modified, data, overwrite):
    # Finalizers (a merging scalar list) are sorted in place by the diff: unsorted ones must not
    # reach the caller's live object, with or without disposable copies of the other two.
    live = _live(original, data)
    before = copy.deepcopy((original, modified, live))
    try:
        patch = strategic.create_three_way(original, modified, live, SCHEMA, overwrite=overwrite)
    except strategic.ConflictError:
        patch = "conflict"
    assert (original, modified, live) == before
    try:
        cheap = strategic.create_three_way(copy.deepcopy(original), copy.deepcopy(modified), live, SCHEMA,
                                           overwrite=overwrite, disposable=True)
    except strategic.ConflictError:
        cheap = "conflict"
    assert live == before[2]
    assert json.dumps(cheap) == json.dumps(patch)
