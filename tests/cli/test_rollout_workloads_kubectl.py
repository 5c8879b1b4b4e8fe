"""Differential: `rollout status|history|undo|pause|resume|restart` of DaemonSets and StatefulSets
print the same bytes and exit codes as /usr/bin/kubectl against the same `kubelite serve`.

kubectl works in namespace k, kubelite in namespace l, both holding the same DaemonSet and
StatefulSet and changed the same way; the namespace is the only thing normalised. Between steps
both sides wait (with kubectl, not compared) until the controllers have rolled the change out.
"""
from __future__ import annotations

import shlex
import shutil

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv

pytestmark = pytest.mark.kubectl

OBJECTS = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: a, image: "busybox:1.36"}]
      volumes: [{name: scratch, emptyDir: {}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.24", ports: [{containerPort: 80}]}]}
"""

# (compare?, command): uncompared steps change both sides the same way or wait for the controllers.
STEPS = [
    (False, "rollout status sts/web --timeout=60s"), (False, "rollout status ds/agent --timeout=60s"),
    (True, "rollout status sts/web --watch=false"), (True, "rollout status ds/agent --watch=false"),
    (True, "rollout history ds/agent"), (True, "rollout history sts/web"),
    (True, "rollout undo ds/agent"), (True, "rollout undo sts/web --to-revision=1"),
    (False, "set image sts/web nginx=nginx:1.25"), (False, "set image ds/agent a=busybox:1.37"),
    (False, "rollout status sts/web --timeout=60s"), (False, "rollout status ds/agent --timeout=60s"),
    (True, "rollout history sts/web"), (True, "rollout history sts/web --revision=1"),
    (True, "rollout history ds/agent --revision=2"), (True, "rollout history ds/agent --revision=7"),
    (True, "rollout status sts/web --watch=false"), (True, "rollout status ds/agent --watch=false"),
    (True, "rollout pause ds/agent"), (True, "rollout resume sts/web"),
    (True, "rollout undo ds/agent --dry-run=client"), (True, "rollout undo sts/web --to-revision=9"),
    (True, "rollout undo sts/web --to-revision=-1"), (True, "rollout undo sts/web --to-revision=2"),
    (True, "rollout undo ds/agent"),
    (False, "rollout status ds/agent --timeout=60s"),
    (True, "rollout history ds/agent"), (True, "rollout undo ds/agent --to-revision=3"),
    (True, "rollout undo sts/web --dry-run=server"),
    (True, "rollout restart sts/web"), (False, "rollout status sts/web --timeout=60s"),
    (True, "rollout history sts/web"),
]


@pytest.fixture
def two_namespaces(served, tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    kubectl = CLI(tmp_path, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "c")])
    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    for ns in ("k", "l"):
        assert kubectl.run("create", "namespace", ns).returncode == 0
        made = kubectl.run("-n", ns, "create", "-f", "-", stdin=OBJECTS)
        assert made.returncode == 0, made.stderr
    yield kubectl, kubelite
    for ns in ("k", "l"):
        kubectl.run("delete", "namespace", ns, "--wait=false")


def test_daemonset_and_statefulset_rollout_match_kubectl(two_namespaces):
    kubectl, kubelite = two_namespaces
    mismatches = []
    for compare, command in STEPS:
        argv = shlex.split(command)
        want = kubectl.run("-n", "k", *argv)
        if not compare:
            assert want.returncode == 0, (command, want.stderr)
            assert kubectl.run("-n", "l", *argv).returncode == 0, command
            continue
        got = kubelite.run("-n", "l", *argv)
        expected = (want.returncode, want.stdout, want.stderr)
        actual = (got.returncode, got.stdout, got.stderr)
        if expected != actual:
            mismatches.append((command, expected, actual))
    assert not mismatches, "\n\n".join(f"{c}\nkubectl:  {e!r}\nkubelite: {a!r}" for c, e, a in mismatches)
