"""Real /usr/bin/kubectl against `kubelite serve`: admission errors and server-side Tables.

- the seeds' retainKeys exercise (seed 004): a strategic patch to `type: Recreate` without
  `$retainKeys` is refused with the Forbidden cause, and the `$retainKeys` patch succeeds;
- `kubectl get` tables for objects recorded on the reference server (rebuilt from the
  recorded Table rows' objects) print as the recorded kubectl output, AGE aside.
"""
from __future__ import annotations

import json
import pathlib

import pytest

import pytest  # noqa: E402

from test_serve_support import KUBECTL, bare_cluster, kubectl_at  # noqa: E402,F401 (bare_cluster: a fixture)


@pytest.fixture(scope="module")
def cluster(bare_cluster):
    """These recordings were made against a kube-apiserver with no controllers running."""
    return bare_cluster

TABLES = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "tables"
pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")]

RETAINKEYS_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: retainkeys-demo
spec:
  selector:
    matchLabels:
      app: nginx
  strategy:
    rollingUpdate:
      maxSurge: 30%
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
        - name: retainkeys-demo-ctr
          image: nginx
"""


def kubectl(cluster, *args, stdin: str | None = None):
    server, base = cluster
    return kubectl_at(server, base / "cache", *args, stdin=stdin)


def test_recreate_without_retainkeys_is_forbidden_then_retainkeys_succeeds(cluster):
    created = kubectl(cluster, "apply", "-f", "-", stdin=RETAINKEYS_DEPLOYMENT)
    assert created.returncode == 0, created.stderr
    refused = kubectl(cluster, "patch", "deployment", "retainkeys-demo", "--patch", "spec:\n  strategy:\n    type: Recreate\n")
    assert refused.returncode == 1
    assert refused.stderr == (
        'The Deployment "retainkeys-demo" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be '
        "specified when strategy `type` is 'Recreate'\n")
    fixed = kubectl(cluster, "patch", "deployment", "retainkeys-demo", "--patch",
                    "spec:\n  strategy:\n    $retainKeys:\n      - type\n    type: Recreate\n")
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout == "deployment.apps/retainkeys-demo patched\n"
    live = json.loads(kubectl(cluster, "get", "deployment", "retainkeys-demo", "-o", "json").stdout)
    assert live["spec"]["strategy"] == {"type": "Recreate"}


# (recorded table file stem, kubectl resource) for kinds whose columns do not change with time
# except AGE (the last column).
TABLE_CASES = [
    ("deployments_apps", "deployments.apps"), ("services", "services"), ("configmaps", "configmaps"),
    ("secrets", "secrets"), ("serviceaccounts", "serviceaccounts"), ("replicasets_apps", "replicasets.apps"),
    ("statefulsets_apps", "statefulsets.apps"), ("daemonsets_apps", "daemonsets.apps"),
    ("replicationcontrollers", "replicationcontrollers"), ("limitranges", "limitranges"),
    ("persistentvolumeclaims", "persistentvolumeclaims"), ("poddisruptionbudgets_policy", "poddisruptionbudgets"),
    ("networkpolicies_networking_k8s_io", "networkpolicies"), ("ingresses_networking_k8s_io", "ingresses"),
    ("horizontalpodautoscalers_autoscaling", "horizontalpodautoscalers"), ("roles_rbac_authorization_k8s_io", "roles"),
    ("rolebindings_rbac_authorization_k8s_io", "rolebindings"), ("podtemplates", "podtemplates"),
    ("leases_coordination_k8s_io", "leases"), ("endpoints", "endpoints"),
]
_SYSTEM = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink")


def _recorded_objects(stem: str) -> list[dict]:
    table = json.loads((TABLES / f"{stem}.table-includeObject-Object.json").read_text())
    objects = []
    for row in table["rows"]:
        obj = row["object"]
        for key in _SYSTEM:
            obj["metadata"].pop(key, None)
        objects.append(obj)
    return objects


def _without_age(text: str) -> list[str]:
    lines = [line for line in text.splitlines() if not line.startswith("[exit=")]
    return [line.rsplit(None, 1)[0].rstrip() if len(line.split()) > 1 else line for line in lines]


@pytest.fixture(scope="module")
def recorded_objects(cluster):
    """Every recorded object of TABLE_CASES created in kubelite (statuses put back via /status)."""
    namespaces = set()
    documents = []
    for stem, _ in TABLE_CASES:
        for obj in _recorded_objects(stem):
            namespaces.add(obj["metadata"].get("namespace"))
            documents.append(obj)
    for ns in sorted(n for n in namespaces if n):
        # (`kubectl create namespace` sends protobuf, which kubelite does not decode)
        kubectl(cluster, "apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                                "metadata": {"name": ns}}))
    for obj in documents:
        status = obj.pop("status", None)
        created = kubectl(cluster, "apply", "-f", "-", "-o", "json", stdin=json.dumps(obj))
        assert created.returncode == 0, (obj["metadata"]["name"], created.stderr)
        if status:
            live = json.loads(created.stdout)
            live["status"] = status
            kubectl(cluster, "replace", "--subresource", "status", "-f", "-", stdin=json.dumps(live))
    return namespaces


@pytest.mark.parametrize("stem,resource", TABLE_CASES)
def test_get_table_matches_recorded_kubectl_output(cluster, recorded_objects, stem, resource):
    want = _without_age((TABLES / f"{stem}.get.txt").read_text())
    namespace = next(iter(o["metadata"].get("namespace") for o in _recorded_objects(stem)))
    got = kubectl(cluster, "get", resource, "-n", namespace)
    assert got.returncode == 0, got.stderr
    assert _without_age(got.stdout) == want
