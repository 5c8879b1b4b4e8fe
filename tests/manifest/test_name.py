"""`-o name`, differential against /usr/bin/kubectl (offline patch --local)."""

import json
import os
import shutil
import subprocess

import pytest

from kubelite.manifest import name

KUBECTL = "/usr/bin/kubectl"

OBJECTS = [
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "ns"}},
    {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "viewer"}},
    {"apiVersion": "rc.example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}},
    {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "deny-all"}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"}},
    {"apiVersion": "example.com/v1alpha1", "kind": "MyThing", "metadata": {"generateName": "t-"}},
]


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
def test_name_matches_kubectl(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": OBJECTS}))
    result = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", "name"],
        capture_output=True, env=dict(os.environ, KUBECONFIG="/dev/null"), timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert name.render(OBJECTS) == result.stdout.decode()
    # A List object is printed item by item.
    assert name.render({"apiVersion": "v1", "kind": "List", "items": OBJECTS}) == result.stdout.decode()


def test_examples_from_the_issue():
    assert name.resource_name(OBJECTS[0]) == "deployment.apps/nginx"
    assert name.resource_name(OBJECTS[1]) == "pod/x"


def test_operation_suffix_like_success_lines():
    assert name.resource_name(OBJECTS[0], "created") == "deployment.apps/nginx created"


def test_missing_kind_and_api_version_is_an_error():
    with pytest.raises(name.NamePrinterError, match="missing apiVersion or kind"):
        name.resource_name({"metadata": {"name": "x"}})
