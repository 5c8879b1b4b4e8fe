"""The field manager's building blocks and its properties (Hypothesis): FieldsV1 round trips,
applying the same configuration twice is a no-op, two managers applying disjoint fields commute,
a field one applier alone owns goes when it stops applying it, and Update bookkeeping."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.server.clock import FakeClock
from kubelite.server.fieldmanager import FieldManager
from kubelite.server.fieldmanager import paths as fp
from kubelite.server.fieldmanager import typed
from kubelite.server.resources import Registry

REGISTRY = Registry()
CONFIGMAPS = REGISTRY.lookup("", "v1", "configmaps")
DEPLOYMENTS = REGISTRY.lookup("apps", "v1", "deployments")
keys = st.text(alphabet="abcdefgh", min_size=1, max_size=3)
values = st.text(alphabet="xyz019", max_size=3)


def _manager() -> FieldManager:
    return FieldManager(FakeClock(1_700_000_000))


def _cm(data: dict, labels: dict | None = None) -> dict:
    meta = {"name": "cm"}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def _apply(fm, live, config, manager, force=False):
    obj, changed = fm.apply(CONFIGMAPS, live, config, manager, force)
    return obj, changed


def _owners(obj) -> dict:
    return {e["manager"]: fp.decode(e["fieldsV1"]) for e in obj["metadata"].get("managedFields") or []}


def test_fieldsv1_encoding_marks_members_with_children():
    paths = {("f:spec", "f:containers", 'k:{"name":"app"}'), ("f:spec", "f:containers", 'k:{"name":"app"}', "f:image")}
    encoded = fp.encode(paths)
    assert encoded == {"f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}}}}}
    assert fp.decode(encoded) == paths


def test_conflict_paths_are_printed_as_kube_apiserver_prints_them():
    path = ("f:spec", "f:ports", 'k:{"containerPort":80,"protocol":"TCP"}', "f:name")
    assert fp.to_string(path) == '.spec.ports[containerPort=80,protocol="TCP"].name'
    assert fp.to_string(("f:metadata", "f:finalizers", 'v:"a/b"')) == '.metadata.finalizers[="a/b"]'


def test_map_list_items_are_keyed_and_atomic_selector_is_one_field():
    from kubelite.schema import for_kind

    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                  "spec": {"selector": {"matchLabels": {"app": "d"}},
                           "template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}
    fields = typed.field_set(deployment, for_kind("apps/v1", "Deployment"))
    assert ("f:spec", "f:selector") in fields
    assert ("f:spec", "f:selector", "f:matchLabels") not in fields
    item = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}')
    assert item in fields and item + ("f:image",) in fields


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=5))
def test_applying_the_same_configuration_twice_changes_nothing(data):
    fm = _manager()
    created, _ = _apply(fm, None, _cm(data), "a")
    again, changed = _apply(fm, created, _cm(data), "a")
    assert not changed
    assert again == created


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=4), st.dictionaries(keys, values, min_size=1, max_size=4))
def test_disjoint_appliers_commute(mine, theirs):
    theirs = {k + "z": v for k, v in theirs.items()}  # disjoint keys
    fm = _manager()
    base, _ = _apply(fm, None, _cm({}), "owner")
    one, _ = _apply(fm, base, _cm(mine), "a")
    one, _ = _apply(fm, one, _cm(theirs), "b")
    two, _ = _apply(fm, base, _cm(theirs), "b")
    two, _ = _apply(fm, two, _cm(mine), "a")
    assert one["data"] == two["data"] == {**mine, **theirs}
    assert _owners(one) == _owners(two)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values, min_size=2, max_size=5))
def test_a_field_one_applier_alone_owns_goes_when_it_stops_applying_it(data):
    fm = _manager()
    created, _ = _apply(fm, None, _cm(data), "a")
    dropped = sorted(data)[0]
    rest = {k: v for k, v in data.items() if k != dropped}
    after, changed = _apply(fm, created, _cm(rest), "a")
    assert changed and after["data"] == rest


def test_a_field_another_manager_also_applies_stays_when_one_drops_it():
    fm = _manager()
    created, _ = _apply(fm, None, _cm({"x": "1", "y": "2"}), "a")
    shared, _ = _apply(fm, created, _cm({"y": "2"}), "c")
    after, _ = _apply(fm, shared, _cm({"x": "1"}), "a")
    assert after["data"] == {"x": "1", "y": "2"}
    assert _owners(after) == {"a": {("f:data", "f:x")}, "c": {("f:data", "f:y")}}


def test_conflict_then_force_moves_ownership():
    from kubelite.server.errors import StatusError

    fm = _manager()
    created, _ = _apply(fm, None, _cm({"x": "1"}), "a")
    try:
        _apply(fm, created, _cm({"x": "2"}), "b")
        raise AssertionError("expected a conflict")
    except StatusError as err:
        assert err.code == 409
        assert err.message == 'Apply failed with 1 conflict: conflict with "a": .data.x'
    forced, _ = _apply(fm, created, _cm({"x": "2"}), "b", force=True)
    assert forced["data"] == {"x": "2"} and _owners(forced) == {"b": {("f:data", "f:x")}}


def test_update_takes_changed_fields_and_a_no_op_update_keeps_everything():
    fm = _manager()
    created, _ = _apply(fm, None, _cm({"x": "1"}), "a")
    changed = json.loads(json.dumps(created))
    changed["data"]["x"] = "2"
    updated = fm.record_update(CONFIGMAPS, created, changed, "editor")
    assert _owners(updated) == {"editor": {("f:data", "f:x")}}
    same = fm.record_update(CONFIGMAPS, updated, json.loads(json.dumps(updated)), "other")
    assert same["metadata"]["managedFields"] == updated["metadata"]["managedFields"]


def test_create_records_defaulted_fields_but_not_value_structs():
    fm = _manager()
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"replicas": 1, "strategy": {"type": "RollingUpdate"}}}
    created = fm.record_update(DEPLOYMENTS, None, obj, "kubectl-create")
    fields = _owners(created)["kubectl-create"]
    assert ("f:spec", "f:replicas") in fields and ("f:spec", "f:strategy", "f:type") in fields
    assert ("f:spec",) not in fields and ("f:spec", "f:strategy") not in fields


names = st.text(alphabet="abcdef", min_size=1, max_size=4)


def _deployment(containers: list[dict]) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": containers}}}}


@settings(max_examples=40, deadline=None)
@given(st.lists(names, min_size=1, max_size=3, unique=True), st.lists(names, min_size=1, max_size=3, unique=True))
def test_managers_applying_disjoint_items_of_a_map_list_commute(mine, theirs):
    theirs = [n + "z" for n in theirs]  # disjoint keys
    fm = _manager()

    def apply(live, names_, manager):
        config = _deployment([{"name": n, "image": f"img-{n}"} for n in names_])
        return fm.apply(DEPLOYMENTS, live, config, manager, False)[0]

    one = apply(apply(None, mine, "a"), theirs, "b")
    two = apply(apply(None, theirs, "b"), mine, "a")

    def containers(obj):
        return sorted(c["name"] for c in obj["spec"]["template"]["spec"]["containers"])

    assert containers(one) == containers(two) == sorted(mine + theirs)
    assert _owners(one) == _owners(two)
