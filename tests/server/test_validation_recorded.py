"""Validation + errors.invalid reproduce the recorded 422 Status bodies.

Each recorded request body goes through the create (or update) pipeline —
defaults, strategy, validation — and the resulting Status must equal the
server's, message and causes in order.  Update cases need the object before
the change; it is rebuilt from the PUT body with the change reverted.
"""

import copy
import json
import pathlib

import pytest

from kubelite.server import errors
from kubelite.server.admission import defaults, plugins
from kubelite.server.admission.validation import validate

ERRORS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"
FAKE_UID = "00000000-0000-0000-0000-000000000001"


def _request(name: str) -> tuple[str, str, dict | None]:
    text = (ERRORS / f"{name}.txt").read_text(encoding="utf-8")
    request = text.split("### REQUEST", 1)[1].split("### RESPONSE", 1)[0]
    head, _, body = request.partition("\n\n")
    method, path, _ = head.split("\n", 1)[1].split(" ", 2)
    body = body.strip()
    if name in LARGE_BODIES:
        return method, path, LARGE_BODIES[name]
    return method, path, json.loads(body) if body.startswith("{") else None


def _expected(name: str) -> dict:
    return json.loads((ERRORS / f"{name}.body.json").read_text())


def _namespace(path: str) -> str | None:
    parts = path.split("?")[0].split("/")
    return parts[parts.index("namespaces") + 1] if "namespaces" in parts[:-1] and parts[-2] != "" else None


def _status(obj: dict, causes: list) -> dict:
    group, kind = defaults.group_kind(obj)
    return errors.invalid(group, kind, obj.get("metadata", {}).get("name", ""), causes).to_status()


def _create(body: dict, namespace: str | None, name_override: str | None = None) -> dict:
    obj = copy.deepcopy(body)
    meta = obj.setdefault("metadata", {})
    if namespace and obj.get("kind") != "Namespace":
        meta["namespace"] = namespace
    if name_override:
        meta["name"] = name_override
    obj = defaults.apply_defaults(obj)
    obj["metadata"]["uid"] = FAKE_UID
    obj = defaults.prepare_for_create(obj)
    causes = validate(obj)
    if causes:
        return _status(obj, causes)
    if obj.get("kind") == "Service":
        try:
            obj = plugins.allocate_node_ports(plugins.allocate_cluster_ip(obj, used=[]), used=[])
        except errors.StatusError as err:
            return err.to_status()
    raise AssertionError("object was accepted")


CREATE_CASES = [
    "create-no-name",
    "create-generatename-invalid",
    "invalid-configmap-name-uppercase",
    "invalid-configmap-name-too-long",
    "invalid-pod-name-double-dot",
    "invalid-service-name-leading-digit",
    "invalid-service-name-dot",
    "invalid-label-key-invalid",
    "invalid-label-value-too-long",
    "invalid-label-key-prefix-invalid",
    "invalid-annotation-key-invalid",
    "invalid-annotation-too-large",
    "invalid-configmap-too-large",
    "invalid-configmap-key-invalid",
    "invalid-configmap-key-duplicate-binary",
    "invalid-pod-no-containers",
    "invalid-pod-missing-image",
    "invalid-pod-duplicate-container-names",
    "invalid-pod-container-port-out-of-range",
    "invalid-pod-container-port-zero",
    "invalid-pod-invalid-restart-policy",
    "invalid-pod-requests-exceed-limits",
    "invalid-pod-negative-resource",
    "invalid-pod-volume-mount-unknown",
    "invalid-pod-env-name-invalid",
    "invalid-pod-many-errors",
    "invalid-service-port-out-of-range",
    "invalid-service-invalid-type",
    "invalid-service-duplicate-port",
    "invalid-service-nodeport-out-of-range",
    "invalid-service-clusterip-out-of-range",
    "invalid-service-externalname-missing",
    "invalid-service-no-ports",
    "invalid-deployment-selector-mismatch",
    "invalid-deployment-missing-selector",
    "invalid-deployment-empty-selector",
    "invalid-deployment-recreate-with-rollingupdate",
    "invalid-deployment-negative-replicas",
    "invalid-deployment-rollingupdate-both-zero",
    "invalid-deployment-bad-selector-operator",
    "invalid-deployment-template-restart-never",
    "invalid-job-restart-always",
    "invalid-job-negative-backofflimit",
    "invalid-cronjob-bad-schedule",
    "invalid-pvc-missing-fields",
    "invalid-secret-key-invalid",
    "invalid-secret-dockerconfigjson-missing-key",
    "invalid-secret-tls-missing-key",
    "invalid-ingress-missing-pathtype",
    "invalid-hpa-min-greater-than-max",
    "invalid-rolebinding-missing-roleref",
    "invalid-namespace-name-invalid",
    "invalid-priorityclass-reserved-prefix",
    "invalid-priorityclass-value-too-high",
    "dryrun-create-invalid",
]

# Bodies over 64 KiB are elided in the records; rebuild them from the note.
LARGE_BODIES = {
    "invalid-annotation-too-large": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "bigannot", "annotations": {"big": "x" * (256 * 1024)}},
    },
    "invalid-configmap-too-large": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "bigcm"},
        "data": {"big": "x" * (1024 * 1024 + 1)},
    },
}


@pytest.mark.parametrize("name", CREATE_CASES)
def test_create_422_matches_recording(name):
    method, path, body = _request(name)
    assert method == "POST"
    expected = _expected(name)
    override = None
    if name == "create-generatename-invalid":
        override = expected["details"]["name"]  # the server's random suffix
    status = _create(body, _namespace(path), override)
    assert status == expected
    assert errors.go_json(status) == (ERRORS / f"{name}.body.json").read_bytes()


def _old_for(name: str, new: dict) -> dict:
    """The stored object before the recorded PUT (the change reverted)."""
    old = copy.deepcopy(new)
    spec = old.get("spec", {})
    if name == "immutable-deployment-selector":
        spec["selector"] = {"matchLabels": {"app": "immut-dep"}}
        spec["template"]["metadata"]["labels"] = {"app": "immut-dep"}
    elif name == "immutable-service-clusterip":
        spec["clusterIP"] = "10.0.0.77"
        spec["clusterIPs"] = ["10.0.0.77"]
    elif name == "immutable-job-completions":
        spec["completions"] = 1
    elif name == "immutable-job-selector":
        uid = old["metadata"]["uid"]
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    elif name == "immutable-configmap-data":
        old["data"] = {"a": "1"}
    elif name == "immutable-configmap-unset":
        old["immutable"] = True
    elif name == "immutable-secret-type":
        old["type"] = "Opaque"
    elif name == "immutable-rolebinding-roleref":
        old["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    elif name == "immutable-storageclass-provisioner":
        old["provisioner"] = "example.com/minimal"
    elif name == "immutable-priorityclass-value":
        old["value"] = 1
    elif name == "immutable-crd-scope":
        spec["scope"] = "Namespaced"
    elif name == "immutable-statefulset-volumeclaimtemplates":
        spec["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"] = "1Gi"
    elif name == "immutable-pod-spec":
        for container in spec["containers"]:
            container.pop("ports", None)
    elif name == "immutable-pvc-spec":
        spec["accessModes"] = ["ReadWriteOnce"]
    elif name == "immutable-job-template":
        spec["template"]["spec"]["containers"][0]["image"] = "busybox"
    return old


UPDATE_EXACT = [
    "immutable-deployment-selector",
    "immutable-service-clusterip",
    "immutable-job-completions",
    "immutable-job-selector",
    "immutable-configmap-data",
    "immutable-configmap-unset",
    "immutable-secret-type",
    "immutable-rolebinding-roleref",
    "immutable-storageclass-provisioner",
    "immutable-priorityclass-value",
    "immutable-crd-scope",
    "immutable-statefulset-volumeclaimtemplates",
]
# Their messages embed Go's %#v / cmp.Diff of whole structs; only the first
# line and the cause fields are compared.
UPDATE_PREFIX_ONLY = ["immutable-pod-spec", "immutable-pvc-spec", "immutable-job-template"]


def _update_status(name: str) -> dict:
    method, _, body = _request(name)
    assert method == "PUT"
    new = defaults.apply_defaults(body)
    old = _old_for(name, new)
    causes = validate(new, old)
    assert causes, "update was accepted"
    return _status(new, causes)


@pytest.mark.parametrize("name", UPDATE_EXACT)
def test_update_422_matches_recording(name):
    status = _update_status(name)
    assert status == _expected(name)
    assert errors.go_json(status) == (ERRORS / f"{name}.body.json").read_bytes()


def _stable_part(message: str) -> tuple[str, str]:
    """The message around the Go struct dump: (text before it, text after it)."""
    first = message.split("\n")[0]
    if "Invalid value: core." in first:
        head, _, rest = first.partition("Invalid value: core.")
        return head, rest.rsplit("}: ", 1)[-1]
    return first, ""


@pytest.mark.parametrize("name", UPDATE_PREFIX_ONLY)
def test_update_422_first_line_matches_recording(name):
    got, want = _update_status(name), _expected(name)
    assert _stable_part(got["message"]) == _stable_part(want["message"])
    assert [(c["reason"], c["field"]) for c in got["details"]["causes"]] == [
        (c["reason"], c["field"]) for c in want["details"]["causes"]
    ]


def test_valid_update_has_no_causes():
    _, _, body = _request("immutable-configmap-data")
    new = defaults.apply_defaults(body)
    assert validate(new, copy.deepcopy(new)) == []


DEFAULTS = ERRORS.parent / "defaults"
KUBECTL_CREATE_ERRORS = ["endpointslice-bad-label", "event-missing-regarding", "ingressclass-missing-controller"]


@pytest.mark.parametrize("name", KUBECTL_CREATE_ERRORS)
def test_kubectl_create_errors_from_defaults(name):
    """kubectl prints ``The <Kind> "<name>" is invalid: <causes>`` for a 422."""
    import yaml

    obj = yaml.safe_load((DEFAULTS / f"{name}.in.yaml").read_text())
    if obj["kind"] != "IngressClass":
        obj["metadata"]["namespace"] = "rc-defaults"
    obj = defaults.prepare_for_create(defaults.apply_defaults(obj))
    causes = validate(obj)
    err = errors.invalid("", obj["kind"], obj["metadata"]["name"], causes)
    detail = err.message.split(" is invalid: ", 1)[1]
    expected = (DEFAULTS / f"{name}.create-error.txt").read_text().strip()
    assert f'The {obj["kind"]} "{obj["metadata"]["name"]}" is invalid: {detail}' == expected


CR_CASES = [
    "invalid-cr-schema-violations",
    "invalid-cr-cel-rule",
    "invalid-cr-missing-required",
    "invalid-cr-missing-spec",
    "invalid-cr-wrong-type",
]


@pytest.mark.parametrize("name", CR_CASES)
def test_custom_resource_422(name):
    """Causes match; their order follows Go map iteration on the server, so
    the message is compared only for single-cause cases."""
    import yaml

    from kubelite.server.admission import crd

    definition = defaults.apply_defaults(yaml.safe_load((DEFAULTS / "crd-rich.in.yaml").read_text()))
    _, path, body = _request(name)
    body["metadata"]["namespace"] = _namespace(path)
    obj = crd.prepare_custom_resource_for_create(body, definition)
    causes = validate(obj) + crd.validate_custom_resource(obj, definition)
    got = errors.invalid("rc.example.com", "Widget", obj["metadata"]["name"], causes).to_status()
    want = _expected(name)
    key = lambda c: (c["field"], c["reason"], c["message"])  # noqa: E731
    assert sorted(got["details"]["causes"], key=key) == sorted(want["details"]["causes"], key=key)
    if len(want["details"]["causes"]) == 1:
        assert got == want


@pytest.mark.parametrize("name", ["mutable-pod-image", "immutable-configmap-labels-ok", "update-without-rv"])
def test_recorded_successful_updates_validate(name):
    """PUTs the server accepted (200) produce no causes against a plausible old object."""
    method, _, body = _request(name)
    assert method == "PUT"
    new = defaults.apply_defaults(body)
    old = copy.deepcopy(new)
    if name == "mutable-pod-image":
        old["spec"]["containers"][0]["image"] = "nginx:previous"
    if name == "immutable-configmap-labels-ok":
        old["metadata"].pop("labels", None)
    assert validate(new, old) == []


def test_annotation_size_limit_boundary():
    from kubelite.server.admission.validation import TOTAL_ANNOTATION_SIZE_LIMIT

    def cm(size):
        value = "x" * (size - 1)
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "a", "namespace": "n", "annotations": {"k": value}}}

    assert validate(cm(TOTAL_ANNOTATION_SIZE_LIMIT)) == []
    assert [c["field"] for c in validate(cm(TOTAL_ANNOTATION_SIZE_LIMIT + 1))] == ["metadata.annotations"]
