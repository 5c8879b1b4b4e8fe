"""Real /usr/bin/kubectl against `kubelite serve` (the seeds' simple_deployment.yaml workflow)."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
import yaml

from test_serve_support import KUBECTL, bare_cluster, kubectl_at  # noqa: E402,F401 (bare_cluster: a fixture)


@pytest.fixture(scope="module")
def cluster(bare_cluster):
    """These recordings were made against a kube-apiserver with no controllers running."""
    return bare_cluster

pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")]

# The seeds' application/simple_deployment.yaml (its content is shown in the seed's output).
SIMPLE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  selector:
    matchLabels:
      app: nginx
  minReadySeconds: 5
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
"""


def kubectl(cluster, *args, stdin: str | None = None, check: bool = True):
    server, base = cluster
    proc = kubectl_at(server, base / "cache", *args, stdin=stdin)
    if check and proc.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def manifest(cluster):
    path = cluster[1] / "simple_deployment.yaml"
    path.write_text(SIMPLE_DEPLOYMENT)
    return str(path)


def test_apply_creates_and_get_shows_defaults(cluster, manifest):
    out = kubectl(cluster, "apply", "-f", manifest)
    assert out.stdout.strip() == "deployment.apps/nginx-deployment created"
    live = yaml.safe_load(kubectl(cluster, "get", "-f", manifest, "-o", "yaml").stdout)
    annotation = live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert json.loads(annotation)["spec"]["minReadySeconds"] == 5
    assert live["spec"]["replicas"] == 1
    assert live["spec"]["strategy"] == {"type": "RollingUpdate",
                                        "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    assert live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert live["metadata"]["generation"] == 1


def test_apply_again_is_unchanged_then_configured(cluster, manifest):
    assert kubectl(cluster, "apply", "-f", manifest).stdout.strip() == \
        "deployment.apps/nginx-deployment unchanged"
    changed = SIMPLE_DEPLOYMENT.replace("nginx:1.14.2", "nginx:1.16.1").replace("  minReadySeconds: 5\n", "")
    path = cluster[1] / "update.yaml"
    path.write_text(changed)
    assert kubectl(cluster, "apply", "-f", str(path)).stdout.strip() == \
        "deployment.apps/nginx-deployment configured"
    live = json.loads(kubectl(cluster, "get", "deployment", "nginx-deployment", "-o", "json").stdout)
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.16.1"
    assert "minReadySeconds" not in live["spec"]
    assert live["metadata"]["generation"] == 2


def test_scale(cluster):
    assert kubectl(cluster, "scale", "deployment/nginx-deployment", "--replicas=3").stdout.strip() == \
        "deployment.apps/nginx-deployment scaled"
    live = json.loads(kubectl(cluster, "get", "deployment", "nginx-deployment", "-o", "json").stdout)
    assert live["spec"]["replicas"] == 3


@pytest.mark.parametrize("kind,patch,check", [
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.17"}]}}}}',
     lambda d: d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.17"),
    ("merge", '{"metadata":{"labels":{"tier":"web"}}}', lambda d: d["metadata"]["labels"]["tier"] == "web"),
    ("json", '[{"op":"replace","path":"/spec/replicas","value":2}]', lambda d: d["spec"]["replicas"] == 2),
])
def test_patch_types(cluster, kind, patch, check):
    out = kubectl(cluster, "patch", "deployment", "nginx-deployment", "--type", kind, "-p", patch)
    assert out.stdout.strip() == "deployment.apps/nginx-deployment patched"
    live = json.loads(kubectl(cluster, "get", "deployment", "nginx-deployment", "-o", "json").stdout)
    assert check(live)


def test_get_table(cluster):
    out = kubectl(cluster, "get", "deployments").stdout.splitlines()
    assert out[0].split()[0] == "NAME"
    assert out[1].split()[0] == "nginx-deployment"


def test_get_namespaces_lists_the_default_ones(cluster):
    names = kubectl(cluster, "get", "namespaces", "-o", "name").stdout.split()
    assert {"namespace/default", "namespace/kube-system", "namespace/kube-public",
            "namespace/kube-node-lease"} <= set(names)


def test_api_resources(cluster):
    out = kubectl(cluster, "api-resources").stdout
    lines = {line.split()[0] for line in out.splitlines()[1:]}
    assert {"deployments", "pods", "configmaps", "namespaces"} <= lines


def test_watch_receives_an_event(cluster):
    """A ConfigMap made before the watch shows in its first list; one made once that list is out
    comes as an event (the watch starts from the list's resourceVersion, so nothing is missed
    however late the watch connects)."""
    import select
    import time

    server, base = cluster
    kubectl(cluster, "create", "configmap", "listed")
    proc = subprocess.Popen([KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(base / "cache"),
                             "get", "configmaps", "-w", "--output-watch-events", "-o", "name"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def read_until(name: str, deadline: float) -> list[str]:
        seen = []
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                line = proc.stdout.readline()
                if not line:
                    break
                seen.append(line.strip())
                if f"configmap/{name}" in line:
                    break
        return seen

    try:
        listed = read_until("listed", time.monotonic() + 30)
        assert any("configmap/listed" in line for line in listed), listed
        kubectl(cluster, "create", "-f", "-",
                stdin="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\ndata:\n  a: b\n")
        seen = read_until("watched", time.monotonic() + 15)
        assert "configmap/watched" in seen, seen
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        kubectl(cluster, "delete", "configmap", "listed", "watched", check=False)


def test_delete(cluster, manifest):
    out = kubectl(cluster, "delete", "-f", manifest)
    assert out.stdout.strip() == 'deployment.apps "nginx-deployment" deleted'
    gone = kubectl(cluster, "get", "deployment", "nginx-deployment", check=False)
    assert gone.returncode == 1
    assert 'deployments.apps "nginx-deployment" not found' in gone.stderr


def test_unauthorized_without_token(cluster):
    server, base = cluster
    config = yaml.safe_load(server.kubeconfig.read_text())
    config["users"][0]["user"] = {"token": "not-the-token"}
    path = base / "anonymous.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    proc = subprocess.run([KUBECTL, "--kubeconfig", str(path), "--cache-dir", str(base / "cache-anon"),
                           "get", "configmaps"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "error: You must be logged in to the server" in proc.stderr
