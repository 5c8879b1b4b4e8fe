"""Defaulting reproduces what a real kube-apiserver 1.32 stored for each recorded manifest.

For every ``defaults/NAME.in.yaml`` the server returned ``NAME.get.raw.json``.
Server-generated values (uid, resourceVersion, creationTimestamp,
managedFields, allocated cluster IPs / node ports, random volume suffixes)
are taken from the recording; everything else must come from admission.
"""

import copy
import json
import pathlib

import pytest
import yaml

from kubelite.server.admission import crd, defaults, generation, plugins

DATA = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "defaults"
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "managedFields")

SKIP: set = set()
# Custom resources are defaulted from their CRD's structural schema.
CRD_FOR_KIND = {"Widget": "crd-rich", "Gadget": "crd-minimal"}


def _cases():
    names = []
    for path in sorted(DATA.glob("*.in.yaml")):
        name = path.name[: -len(".in.yaml")]
        if (DATA / f"{name}.get.raw.json").exists() and name not in SKIP:
            names.append(name)
    return names


def _strip_openshift(expected: dict) -> None:
    """Drop the OpenShift-only service-ca projected source (upstream has none)."""
    for volume in (expected.get("spec") or {}).get("volumes") or []:
        sources = (volume.get("projected") or {}).get("sources")
        if sources:
            volume["projected"]["sources"] = [
                s for s in sources if (s.get("configMap") or {}).get("name") != "openshift-service-ca.crt"
            ]


def _limit_ranges():
    return [
        defaults.apply_defaults(yaml.safe_load((DATA / f"{name}.in.yaml").read_text()))
        for name in ("limitrange-minimal", "limitrange-rich")
    ]


def _token_suffix(expected: dict) -> str | None:
    for volume in (expected.get("spec") or {}).get("volumes") or []:
        if volume.get("name", "").startswith("kube-api-access-"):
            return volume["name"][len("kube-api-access-") :]
    return None


def run_create(obj: dict, expected: dict) -> dict:
    """The create pipeline: defaults, mutating admission, strategy."""
    meta_in = obj.setdefault("metadata", {})
    exp_meta = expected["metadata"]
    if "namespace" in exp_meta:
        meta_in["namespace"] = exp_meta["namespace"]
    obj = defaults.apply_defaults(obj)
    group, kind = defaults.group_kind(obj)
    if (group, kind) == ("", "Pod"):
        limit_ranges = _limit_ranges() if exp_meta.get("namespace") == "rc-defaults-limits" else []
        obj = plugins.admit_pod(
            obj,
            service_account={"metadata": {"name": "default"}},
            limit_ranges=limit_ranges,
            volume_suffix=_token_suffix(expected),
        )
    if kind in CRD_FOR_KIND and group == "rc.example.com":
        definition = defaults.apply_defaults(
            yaml.safe_load((DATA / f"{CRD_FOR_KIND[kind]}.in.yaml").read_text())
        )
        obj = crd.prepare_custom_resource_for_create(obj, definition)
    if (group, kind) == ("", "Service"):
        obj = plugins.allocate_cluster_ip(obj, used=[])
        obj = plugins.allocate_node_ports(obj, used=[])
    gen = generation.initial_generation(obj)
    if gen is not None:
        obj["metadata"]["generation"] = gen
    obj["metadata"]["uid"] = exp_meta["uid"]
    obj = defaults.prepare_for_create(obj, now=exp_meta["creationTimestamp"])
    if kind == "CustomResourceDefinition":
        # Written by the apiextensions controllers that run inside the server.
        obj["status"] = crd.crd_initial_status(obj, exp_meta["creationTimestamp"])
    return obj


def _normalise(obj: dict, expected: dict) -> tuple[dict, dict]:
    got = copy.deepcopy(obj)
    want = copy.deepcopy(expected)
    for item in (got, want):
        for key in SERVER_FIELDS:
            item.get("metadata", {}).pop(key, None)
    _strip_openshift(want)
    if want.get("kind") == "Service":
        spec, got_spec = want.get("spec", {}), got.get("spec", {})
        for key in ("clusterIP", "clusterIPs", "healthCheckNodePort"):
            if spec.get(key) not in (None, "None", ["None"]) and key in got_spec:
                got_spec[key] = spec[key]
        for mine, theirs in zip(got_spec.get("ports") or [], spec.get("ports") or []):
            if "nodePort" in mine and "nodePort" in theirs:
                mine["nodePort"] = theirs["nodePort"]
    return got, want


@pytest.mark.parametrize("name", _cases())
def test_defaults_match_server(name):
    obj = yaml.safe_load((DATA / f"{name}.in.yaml").read_text())
    if name == "cr-gadget":
        # kubectl reads YAML 1.1, where the key `n` is the boolean false.
        obj["spec"]["false"] = obj["spec"].pop("n")
    expected = json.loads((DATA / f"{name}.get.raw.json").read_text())
    got, want = _normalise(run_create(obj, expected), expected)
    assert got == want


def test_apply_defaults_does_not_mutate_input():
    obj = yaml.safe_load((DATA / "deployment-minimal.in.yaml").read_text())
    before = copy.deepcopy(obj)
    out = defaults.apply_defaults(obj)
    assert obj == before
    assert out["spec"]["replicas"] == 1
    assert out["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }


@pytest.mark.parametrize(
    "image,policy",
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("registry:5000/nginx", "Always"),
        ("registry:5000/nginx:1.2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
    ],
)
def test_image_pull_policy(image, policy):
    assert defaults.image_pull_policy(image) == policy


def test_unknown_kind_unchanged():
    obj = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "x"}, "spec": {}}
    assert defaults.apply_defaults(obj) == obj


@pytest.mark.parametrize("name", _cases())
def test_accepted_objects_validate_cleanly(name):
    """Everything the server accepted must pass validation (no false 422s)."""
    from kubelite.server.admission.validation import validate

    obj = yaml.safe_load((DATA / f"{name}.in.yaml").read_text())
    expected = json.loads((DATA / f"{name}.get.raw.json").read_text())
    assert validate(run_create(obj, expected)) == []


@pytest.mark.parametrize("name", _cases())
def test_stored_objects_validate_as_noop_update(name):
    """A PUT of the stored object onto itself is valid."""
    from kubelite.server.admission.validation import validate

    stored = json.loads((DATA / f"{name}.get.raw.json").read_text())
    stored = defaults.apply_defaults(stored)
    assert validate(stored, copy.deepcopy(stored)) == []


ERRORS = DATA.parent / "errors"


def _put(name: str) -> tuple[dict, dict]:
    text = (ERRORS / f"{name}.txt").read_text()
    request = text.split("### REQUEST", 1)[1].split("### RESPONSE", 1)[0]
    return json.loads(request.partition("\n\n")[2]), json.loads((ERRORS / f"{name}.body.json").read_text())


@pytest.mark.parametrize(
    "name",
    ["immutable-service-clusterip-removed", "immutable-service-type-externalname-keeps-ip", "immutable-creationtimestamp"],
)
def test_update_strategy_matches_recorded_put(name):
    """The stored result of a PUT, given the object before it."""
    from kubelite.server.admission.validation import validate

    body, response = _put(name)
    old = copy.deepcopy(response)
    if name == "immutable-service-type-externalname-keeps-ip":
        old = copy.deepcopy(body)
        old["spec"]["type"] = "ClusterIP"
        old["spec"].pop("externalName")
    new = defaults.prepare_for_update(defaults.apply_defaults(body), old)
    assert validate(new, old) == []
    for item in (new, response):
        for key in ("resourceVersion", "managedFields"):
            item["metadata"].pop(key, None)
    assert new == response
