"""Differential: `kubelite get` and /usr/bin/kubectl get against the same `kubelite serve` and
the same objects print the same bytes (AGE columns aside)."""
from __future__ import annotations

import shutil

import pytest

from cli_support import without_ages

pytestmark = pytest.mark.kubectl

OBJECTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: alpha
  labels: {app: web, tier: front}
data: {color: blue, "n": "1"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: beta
  labels: {app: db}
data: {color: red}
---
apiVersion: v1
kind: Secret
metadata:
  name: gamma
  labels: {app: web}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27"}]
"""

COMMANDS = [
    ["get", "configmaps", "-o", "yaml"],
    ["get", "configmap", "alpha", "-o", "json"],
    ["get", "cm/alpha", "secret/gamma", "-o", "yaml"],
    ["get", "cm,secrets", "-o", "name"],
    ["get", "cm", "-l", "app=web", "-o", "json"],
    ["get", "cm", "--field-selector", "metadata.name=beta", "-o", "yaml"],
    ["get", "services", "-o", "wide"],
    ["get", "cm"],
    ["get", "cm", "--show-labels"],
    ["get", "cm", "-L", "app,tier"],
    ["get", "cm", "--sort-by", ".metadata.name", "-o", "name"],
    ["get", "cm,svc"],
    ["get", "deploy", "web", "-o", "wide"],
    ["get", "deployment.apps/web", "-o", "yaml"],
    ["get", "ns", "default", "kube-system", "-o", "name"],
    ["get", "namespaces", "--no-headers"],
    ["get", "cm", "alpha", "-o", "jsonpath={.data.color}"],
    ["get", "cm", "-o", "custom-columns=NAME:.metadata.name,COLOR:.data.color"],
    ["get", "cm", "nope"],
    ["get", "cm", "alpha", "nope", "-o", "name"],
    ["get", "nosuchtype"],
    ["get", "pods"],
    ["get", "pods", "--ignore-not-found"],
    ["get", "cm", "-A", "-l", "app"],
    ["get", "cm", "-n", "kube-system"],
]

def _normalise(text: str) -> str:
    return without_ages(text)


@pytest.fixture(scope="module")
def loaded(served, tmp_path_factory):
    import subprocess
    import sys

    path = tmp_path_factory.mktemp("objs") / "objects.yaml"
    path.write_text(OBJECTS)
    r = subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig), "create", "-f",
                        str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return served


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_same_output_as_kubectl(loaded, remote, kubectl, command):
    if not shutil.which("kubectl"):
        pytest.skip("kubectl not installed")
    mine = remote.run(*command)
    theirs = kubectl.run(*command)
    assert (mine.returncode != 0) == (theirs.returncode != 0), (mine.stderr, theirs.stderr)
    assert _normalise(mine.stdout) == _normalise(theirs.stdout)
    assert _normalise(mine.stderr) == _normalise(theirs.stderr)
