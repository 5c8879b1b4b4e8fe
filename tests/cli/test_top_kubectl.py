"""Differential: `kubelite top node|pod` prints the same bytes, to the same streams, with the same
exit code as /usr/bin/kubectl top against one `kubelite serve` (two simulated nodes and a node
without a kubelet, pods whose usage comes from the sim.kubelite.io/cpu|memory annotations and
idle pods, whatever they request), and both fall back to "Metrics API not available" on a server
without metrics.k8s.io."""
from __future__ import annotations

import re
import shlex

import pytest

from cli_support import CLI
from served_sides import served_sides

pytestmark = pytest.mark.kubectl

WORKLOADS = """\
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: node-a
  containers:
  - {name: nginx, image: nginx, resources: {requests: {cpu: 250m, memory: 64Mi}}}
  - {name: sidecar, image: busybox, resources: {requests: {cpu: 10m, memory: 1500Ki}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: hot
  labels: {app: hot}
  annotations: {sim.kubelite.io/cpu: "1500001n", sim.kubelite.io/memory: 300Mi}
spec:
  nodeName: node-b
  containers: [{name: app, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: bare, labels: {app: bare}}
spec: {nodeName: node-a, containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: other}
spec:
  nodeSelector: {nowhere: "true"}
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Namespace
metadata: {name: empty}
---
apiVersion: v1
kind: Node
metadata: {name: node-z, labels: {kubernetes.io/hostname: node-z}}
spec: {unschedulable: true}
"""

CASES = [
    "top node", "top nodes", "top no node-a", "top node --show-capacity", "top node --no-headers",
    "top node --sort-by=cpu", "top node --sort-by=memory", "top node -l kubernetes.io/hostname=node-b",
    "top node -l nope=x", "top node nope", "top node node-z", "top node a b", "top node --sort-by=bogus",
    "top node node-a -l x=y", "top node -l 'a in ('", "top node --use-protocol-buffers=false",
    "top pod", "top pods -A", "top pod --containers", "top po web", "top pod web --containers",
    "top pod -l app=web", "top pod --sort-by=cpu", "top pod --sort-by=memory --containers", "top pod --sum",
    "top pod --sum --no-headers", "top pod -A --containers --sum", "top pod --field-selector=metadata.name=web",
    "top pod --field-selector=spec.nodeName=node-a", "top pod --field-selector=x", "top pod -n other",
    "top pod -n empty", "top pod -n empty -A", "top pod pending -n other", "top pod nope", "top pod a b",
    "top pod web -l a=b", "top pod --sort-by=name", "top pod -A web",
    # the metrics objects themselves, as metrics-server's Tables print them
    "get podmetrics", "get podmetrics.metrics.k8s.io -A", "get nodemetrics", "get nodes.metrics.k8s.io node-a",
    "get podmetrics web -o name", "get podmetrics -l app=hot", "get nodemetrics node-z",
]

_AGE = re.compile(r"age: [0-9hms.]+")


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    with served_sides(tmp_path_factory.mktemp("top"), WORKLOADS, "--nodes", "2") as (kubectl, kubelite):
        running = kubectl.run("wait", "--for=jsonpath={.status.phase}=Running", "pod/web", "pod/hot", "pod/bare",
                              "--timeout=60s")
        assert running.returncode == 0, running.stderr
        yield kubectl, kubelite


def _result(cli: CLI, command: str) -> tuple:
    r = cli.run(*shlex.split(command))
    # kubectl measures a pod's age on its own clock, between the two runs.
    return (r.returncode, r.stdout.replace("kubectl", "kubelite"),
            _AGE.sub("age: <age>", r.stderr.replace("kubectl", "kubelite")))


@pytest.mark.parametrize("command", CASES)
def test_top_as_kubectl(sides, command):
    kubectl, kubelite = sides
    assert _result(kubelite, command) == _result(kubectl, command)


def test_figures_follow_the_simulated_usage(sides):
    _, kubelite = sides
    lines = kubelite.run("top", "pod", "--containers", "--no-headers").stdout.split("\n")
    assert [line.split() for line in lines if line] == [
        ["bare", "c", "1m", "4Mi"], ["hot", "app", "2m", "300Mi"],
        ["web", "nginx", "1m", "4Mi"], ["web", "sidecar", "1m", "4Mi"]]


def test_without_the_metrics_api(tmp_path):
    with served_sides(tmp_path, "", "--controllers=-*") as (kubectl, kubelite):
        for command in ("top node", "top pod -A"):
            ours = _result(kubelite, command)
            assert ours == _result(kubectl, command)
            assert ours == (1, "", "error: Metrics API not available\n")
