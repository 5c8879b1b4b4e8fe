"""Seed 001 ("Merging Fields") merge tables, every row, and seed 000's field-merge examples.

Each case gives the last-applied configuration, the configuration file and the live object as
fragments of a Deployment; the planned patch is applied to the live object the way the API
server applies it, and the field must end up as the seed's table says.
"""
from __future__ import annotations

import copy

import pytest

from kubelite.apply import lastapplied
from kubelite.apply.plan import CREATE, PATCH, UNCHANGED, plan_object
from kubelite.patch import strategic
from kubelite.schema import for_kind

ABSENT = object()
SCHEMA = for_kind("apps/v1", "Deployment")


def deployment(**paths) -> dict:
    """A Deployment with values set at dotted paths (ABSENT leaves the field out)."""
    obj = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "nginx-deployment", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "nginx"}},
                 "template": {"metadata": {"labels": {"app": "nginx"}},
                              "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2"}]}}},
    }
    for dotted, value in paths.items():
        if value is ABSENT:
            continue
        *parents, leaf = dotted.split("__")
        node = obj
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = copy.deepcopy(value)
    return obj


def live_from(last: dict | None, live: dict) -> dict:
    """A live object carrying `last` as its annotation (as a previous apply left it)."""
    live = copy.deepcopy(live)
    if last is not None:
        live["metadata"].setdefault("annotations", {})[lastapplied.LAST_APPLIED] = \
            lastapplied.configuration_text(last)
    return live


def applied(last: dict | None, config: dict, live: dict) -> dict:
    current = live_from(last, live)
    action = plan_object(config, current)
    assert action.verb in (PATCH, UNCHANGED)
    return strategic.apply(current, action.patch.body, SCHEMA)


def field(obj: dict, dotted: str):
    node = obj
    for key in dotted.split("__"):
        if not isinstance(node, dict) or key not in node:
            return ABSENT
        node = node[key]
    return node


# (table, row, path, last-applied value, config value, live value, expected live value)
MRS = "spec__minReadySeconds"
SEC = "spec__template__spec__securityContext"
LABELS = "metadata__labels"
FIN = "metadata__finalizers"
ROWS = [
    # Merging Primitives
    ("primitive", "in config, in live: set live to config", MRS, ABSENT, 5, 3, 5),
    ("primitive", "in config, in live (also in last): set live to config", MRS, 3, 5, 3, 5),
    ("primitive", "in config, not in live: set live to config", MRS, ABSENT, 5, ABSENT, 5),
    ("primitive", "not in config, in last: remove from live", MRS, 3, ABSENT, 3, ABSENT),
    ("primitive", "not in config, not in last: keep live", MRS, ABSENT, ABSENT, 3, 3),
    # Merging Objects
    ("object", "in config, in live: merge recursively", SEC, ABSENT, {"runAsUser": 1},
     {"runAsUser": 2, "fsGroup": 3}, {"runAsUser": 1, "fsGroup": 3}),
    ("object", "in config, not in live: set live to config", SEC, ABSENT, {"runAsUser": 1}, ABSENT,
     {"runAsUser": 1}),
    ("object", "not in config, in last: remove field", SEC, {"runAsUser": 1}, ABSENT,
     {"runAsUser": 1, "fsGroup": 3}, ABSENT),
    ("object", "not in config, not in last: keep live", SEC, ABSENT, ABSENT, {"fsGroup": 3}, {"fsGroup": 3}),
    # Merging Maps (per key)
    ("map", "key in config, in live: merge value", LABELS, ABSENT, {"a": "1"}, {"a": "0", "b": "2"},
     {"a": "1", "b": "2"}),
    ("map", "key in config, not in live: set", LABELS, ABSENT, {"a": "1"}, {"b": "2"}, {"a": "1", "b": "2"}),
    ("map", "key not in config, in last: delete element", LABELS, {"a": "1", "c": "3"}, {"a": "1"},
     {"a": "1", "c": "3", "b": "2"}, {"a": "1", "b": "2"}),
    ("map", "key not in config, not in last: keep", LABELS, {"a": "1"}, {"a": "1"}, {"a": "1", "b": "2"},
     {"a": "1", "b": "2"}),
    # Merging Lists of Primitives (patch strategy merge: finalizers)
    ("merged primitive list", "seed example", FIN, ["a", "b"], ["a", "c"], ["a", "b", "d"], ["a", "c", "d"]),
    ("merged primitive list", "in config, in live: nothing", FIN, ABSENT, ["a"], ["a"], ["a"]),
    ("merged primitive list", "in config, not in live: add", FIN, ABSENT, ["a"], ["d"], ["a", "d"]),
    ("merged primitive list", "not in config, in last: remove", FIN, ["a", "b"], ["a"], ["a", "b"], ["a"]),
    ("merged primitive list", "not in config, not in last: keep", FIN, ["a"], ["a"], ["a", "d"], ["a", "d"]),
]


@pytest.mark.parametrize("table,row,path,last,config,live,expected", ROWS,
                         ids=[f"{r[0]}: {r[1]}" for r in ROWS])
def test_seed_001_merge_table(table, row, path, last, config, live, expected):
    result = applied(deployment(**{path: last}), deployment(**{path: config}), deployment(**{path: live}))
    assert field(result, path) == expected


CONTAINERS = "spec__template__spec__containers"


def test_merged_object_list_seed_example():
    # seed 000 and seed 001: containers merged by name
    last = [{"name": "nginx", "image": "nginx:1.16"}, {"name": "nginx-helper-a", "image": "helper:1.3"},
            {"name": "nginx-helper-b", "image": "helper:1.3"}]
    config = [{"name": "nginx", "image": "nginx:1.16"}, {"name": "nginx-helper-b", "image": "helper:1.3"},
              {"name": "nginx-helper-c", "image": "helper:1.3"}]
    live = [{"name": "nginx", "image": "nginx:1.16"}, {"name": "nginx-helper-a", "image": "helper:1.3"},
            {"name": "nginx-helper-b", "image": "helper:1.3", "args": ["run"]},
            {"name": "nginx-helper-d", "image": "helper:1.3"}]
    result = field(applied(deployment(**{CONTAINERS: last}), deployment(**{CONTAINERS: config}),
                           deployment(**{CONTAINERS: live})), CONTAINERS)
    by_name = {c["name"]: c for c in result}
    assert "nginx-helper-a" not in by_name
    assert by_name["nginx-helper-b"] == {"name": "nginx-helper-b", "image": "helper:1.3", "args": ["run"]}
    assert by_name["nginx-helper-c"] == {"name": "nginx-helper-c", "image": "helper:1.3"}
    assert by_name["nginx-helper-d"] == {"name": "nginx-helper-d", "image": "helper:1.3"}
    # the order `kubectl patch --local` gives for kubectl apply's patch on this live list
    assert [c["name"] for c in result] == ["nginx", "nginx-helper-b", "nginx-helper-d", "nginx-helper-c"]


@pytest.mark.parametrize("row,last,config,live,expected", [
    ("element in config: merged recursively", [{"name": "x", "image": "i:1"}], [{"name": "x", "image": "i:2"}],
     [{"name": "x", "image": "i:1", "args": ["run"]}], [{"name": "x", "image": "i:2", "args": ["run"]}]),
    ("in config, not in live: added", [], [{"name": "x", "image": "i:1"}], [{"name": "y", "image": "i:1"}],
     [{"name": "x", "image": "i:1"}, {"name": "y", "image": "i:1"}]),
    ("not in config, in last: removed", [{"name": "x", "image": "i:1"}, {"name": "y", "image": "i:1"}],
     [{"name": "x", "image": "i:1"}], [{"name": "x", "image": "i:1"}, {"name": "y", "image": "i:1"}],
     [{"name": "x", "image": "i:1"}]),
    ("not in config, not in last: kept", [{"name": "x", "image": "i:1"}], [{"name": "x", "image": "i:1"}],
     [{"name": "x", "image": "i:1"}, {"name": "z", "image": "i:1"}],
     [{"name": "x", "image": "i:1"}, {"name": "z", "image": "i:1"}]),
])
def test_seed_001_object_list_table(row, last, config, live, expected):
    result = applied(deployment(**{CONTAINERS: last}), deployment(**{CONTAINERS: config}),
                     deployment(**{CONTAINERS: live}))
    assert field(result, CONTAINERS) == expected


def test_replaced_primitive_list_seed_000_args():
    path = "spec__template__spec__containers"
    def with_args(args):
        return [{"name": "nginx", "image": "nginx:1.14.2", "args": args}]
    result = applied(deployment(**{path: with_args(["a", "b"])}), deployment(**{path: with_args(["a", "c"])}),
                     deployment(**{path: with_args(["a", "b", "d"])}))
    assert field(result, path)[0]["args"] == ["a", "c"]


def test_default_strategy_recreate_clears_defaulted_rolling_update():
    # kubectl 1.32's patch carries $retainKeys for strategy: the defaulted rollingUpdate goes away
    live = deployment(spec__strategy={"type": "RollingUpdate",
                                      "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}})
    config = deployment(spec__strategy={"type": "Recreate"})
    action = plan_object(config, live_from(deployment(), live))
    assert action.patch.body["spec"]["strategy"] == {"$retainKeys": ["type"], "type": "Recreate"}
    result = strategic.apply(live_from(deployment(), live), action.patch.body, SCHEMA)
    assert result["spec"]["strategy"] == {"type": "Recreate"}


def test_null_in_file_clears_a_field_the_file_never_set():
    live = deployment(spec__minReadySeconds=5, spec__replicas=3)
    config = deployment(spec__replicas=None)
    action = plan_object(config, live_from(deployment(), live))
    result = strategic.apply(live_from(deployment(), live), action.patch.body, SCHEMA)
    assert "replicas" not in result["spec"]
    assert result["spec"]["minReadySeconds"] == 5
    # the null is kept in the annotation, as kubectl keeps it
    assert '"replicas":null' in action.annotation


def test_fields_only_others_set_are_kept_and_annotation_updated_in_the_same_patch():
    # seed 000: scale --replicas=2, then update_deployment.yaml
    first = deployment(spec__minReadySeconds=5)
    live = live_from(first, deployment(spec__minReadySeconds=5, spec__replicas=2))
    update = deployment()
    update[ "spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.16.1"
    action = plan_object(update, live)
    assert action.verb == PATCH
    result = strategic.apply(live, action.patch.body, SCHEMA)
    assert result["spec"]["replicas"] == 2
    assert "minReadySeconds" not in result["spec"]
    assert result["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.16.1"
    assert result["metadata"]["annotations"][lastapplied.LAST_APPLIED] == action.annotation
    assert "minReadySeconds" not in action.annotation


def test_same_file_again_is_unchanged():
    config = deployment(spec__minReadySeconds=5)
    live = copy.deepcopy(plan_object(config, None).body)
    live["spec"]["replicas"] = 1
    assert plan_object(config, live).verb == UNCHANGED


def test_create_drops_nulls_but_the_annotation_keeps_them():
    action = plan_object(deployment(spec__replicas=None), None)
    assert action.verb == CREATE
    assert "replicas" not in action.body["spec"]
    assert '"replicas":null' in action.body["metadata"]["annotations"][lastapplied.LAST_APPLIED]


def test_missing_annotation_warning_is_kubectls():
    action = plan_object(deployment(spec__minReadySeconds=5), deployment(),
                         object_name="deployments.apps/nginx-deployment")
    assert action.warnings == [
        "Warning: resource deployments.apps/nginx-deployment is missing the "
        "kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. "
        "kubectl apply should only be used on resources created declaratively by either kubectl create "
        "--save-config or kubectl apply. The missing annotation will be patched automatically."
    ]
    assert action.verb == PATCH
