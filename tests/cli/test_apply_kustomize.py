"""Seed 004 part 2 (`-k`): apply, get, diff and delete a kustomization on the embedded cluster,
with the seed's files and the output lines the seed prints."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-nginx
spec:
  selector:
    matchLabels:
      run: my-nginx
  replicas: 2
  template:
    metadata:
      labels:
        run: my-nginx
    spec:
      containers:
      - name: my-nginx
        image: nginx
        ports:
        - containerPort: 80
"""

KUSTOMIZATION = """\
namePrefix: dev-
commonLabels:
  app: my-nginx
resources:
- deployment.yaml
"""

# what kubectl 1.32's kustomize prints on stderr for a kustomization using commonLabels
WARNING = ("# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update "
           "your Kustomization automatically.\n")


@pytest.fixture
def app(tmp_path):
    d = tmp_path / "app"
    d.mkdir()
    (d / "deployment.yaml").write_text(DEPLOYMENT)
    (d / "kustomization.yaml").write_text(KUSTOMIZATION)
    return d


def test_seed004_apply_get_diff_delete_k(embedded, app):
    proc = embedded.run("apply", "-k", "./", cwd=app)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "deployment.apps/dev-my-nginx created\n", WARNING)
    # -k is a single source, so kubectl prints its one object as itself, not as a List
    live = json.loads(embedded.run("get", "-k", "./", "-o", "json", cwd=app).stdout)
    assert live["kind"] == "Deployment"
    assert live["metadata"]["name"] == "dev-my-nginx" and live["spec"]["replicas"] == 2
    assert live["metadata"]["labels"] == {"app": "my-nginx"}
    assert live["spec"]["selector"]["matchLabels"] == {"app": "my-nginx", "run": "my-nginx"}

    assert embedded.run("diff", "-k", "./", cwd=app).returncode == 0
    (app / "deployment.yaml").write_text(DEPLOYMENT.replace("replicas: 2", "replicas: 3"))
    proc = embedded.run("diff", "-k", "./", cwd=app)
    assert proc.returncode == 1 and "-  replicas: 2\n+  replicas: 3\n" in proc.stdout
    assert embedded.run("apply", "-k", "./", cwd=app).stdout == "deployment.apps/dev-my-nginx configured\n"
    assert embedded.run("apply", "-k", "./", cwd=app).stdout == "deployment.apps/dev-my-nginx unchanged\n"

    proc = embedded.run("delete", "-k", "./", cwd=app)
    assert (proc.returncode, proc.stdout) == (0, 'deployment.apps "dev-my-nginx" deleted\n')
    assert embedded.run("get", "deployments", "-o", "name").stdout == ""


def test_k_errors(embedded, app, tmp_path):
    proc = embedded.run("apply", "-k", str(app), "-f", str(app / "deployment.yaml"))
    assert (proc.returncode, proc.stderr) == (1, "error: only one of -f or -k can be specified\n")
    proc = embedded.run("delete", "-k", str(app), "-f", str(app / "deployment.yaml"))
    assert (proc.returncode, proc.stderr) == (1, "error: only one of -f or -k can be specified\n")


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")
def test_missing_directory_as_kubectl(embedded, tmp_path):
    missing = str(tmp_path / "nowhere")
    theirs = subprocess.run(["kubectl", "apply", "-k", missing, "--dry-run=client"], capture_output=True, text=True,
                            env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    ours = embedded.run("apply", "-k", missing)
    assert (ours.returncode, ours.stderr) == (theirs.returncode, theirs.stderr)


def test_readme_main_job_on_a_fresh_home(embedded):
    """The README's main job: examples/ (seed manifests) applied to a fresh embedded cluster."""
    import pathlib

    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    proc = embedded.run("apply", "-f", str(examples))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "deployment.apps/nginx-deployment created\n", "")
    proc = embedded.run("apply", "-k", str(examples / "my-nginx"))
    assert (proc.returncode, proc.stdout) == (0, "service/my-nginx created\ndeployment.apps/my-nginx created\n")
    proc = embedded.run("get", "deployments,services", "-o", "name")
    shown = [line for line in proc.stdout.splitlines() if line != "service/kubernetes"]  # a cluster's own
    assert shown == ["deployment.apps/my-nginx", "deployment.apps/nginx-deployment", "service/my-nginx"]
    again = embedded.run("apply", "-f", str(examples))
    assert again.stdout == "deployment.apps/nginx-deployment unchanged\n"
