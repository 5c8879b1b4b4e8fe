"""Differential: HorizontalPodAutoscalers the controller of `kubelite serve` has worked on, read by
/usr/bin/kubectl and by kubelite (get, describe, -o yaml|json): the same bytes once ages are
masked. Three HPAs: `kubectl autoscale` of a Deployment whose pods run hot (scaled up to its
maximum), one over pods without CPU requests (cannot be measured), and an autoscaling/v2 one with
a memory AverageValue target and behavior rules."""
from __future__ import annotations

import re
import shlex

import pytest

from cli_support import CLI
from pod_cli_support import normalised
from served_sides import served_sides

pytestmark = pytest.mark.kubectl

WORKLOADS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {sim.kubelite.io/cpu: 120m}}
    spec: {containers: [{name: nginx, image: nginx, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: bare}
spec:
  replicas: 1
  selector: {matchLabels: {app: bare}}
  template:
    metadata: {labels: {app: bare}}
    spec: {containers: [{name: nginx, image: nginx}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mem}
spec:
  replicas: 2
  selector: {matchLabels: {app: mem}}
  template:
    metadata: {labels: {app: mem}, annotations: {sim.kubelite.io/memory: 48Mi}}
    spec: {containers: [{name: app, image: busybox, resources: {requests: {memory: 64Mi}}}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: mem}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: mem}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 32Mi}}
  behavior:
    scaleUp:
      policies: [{type: Pods, value: 1, periodSeconds: 60}]
    scaleDown:
      stabilizationWindowSeconds: 60
"""

COMMANDS = ["get hpa", "get hpa -o wide", "get hpa web -o yaml", "get hpa -o json", "describe hpa web",
            "describe hpa bare", "describe hpa mem", "describe hpa", "get hpa bare -o jsonpath={.status}"]


_AGE = r"\d+(s|m\d*s?|h\d*m?|d\d*h?)"
_TRAILING_AGE = re.compile(rf"(?m)(?<= ){_AGE}$")
_EVENT_AGE = re.compile(rf"(?<= ){_AGE}( \(x\d+ over {_AGE}\))?(?= )")


def _masked(text: str) -> str:
    """The AGE column (last on each `get` line) masked; in describe's Events the ages and repeat
    counts (a reconcile may come between the two runs) masked, and the columns they widen
    compared without their alignment."""
    lines, in_events = [], False
    for line in normalised(text).splitlines(keepends=True):
        if not line.startswith(" "):
            in_events = line.startswith("Events:")
        elif in_events:
            line = re.sub(" {2,}", "  ", _EVENT_AGE.sub("<age>", line))
        lines.append(line)
    return _TRAILING_AGE.sub("<age>", "".join(lines))


def _wait(kubectl: CLI, target: str, jsonpath: str) -> None:
    done = kubectl.run("wait", f"--for=jsonpath={jsonpath}", target, "--timeout=120s")
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    with served_sides(tmp_path_factory.mktemp("hpa"), WORKLOADS, "--nodes", "1") as (kubectl, kubelite):
        for target in ("web", "bare"):
            made = kubectl.run("autoscale", "deployment", target, "--cpu-percent=50", "--min=1", "--max=3")
            assert made.returncode == 0, made.stderr
        # each HPA is first reconciled 15 s after it is made, then every 15 s; wait until all are
        # settled: at their maximum (nothing more will change), or failing the same way each period
        _wait(kubectl, "hpa/web", '{.status.conditions[?(@.type=="ScalingLimited")].reason}=TooManyReplicas')
        _wait(kubectl, "hpa/bare", '{.status.conditions[?(@.type=="ScalingActive")].reason}=FailedGetResourceMetric')
        _wait(kubectl, "hpa/mem", '{.status.conditions[?(@.type=="ScalingLimited")].reason}=TooManyReplicas')
        _wait(kubectl, "deployment/web", "{.status.availableReplicas}=3")
        yield kubectl, kubelite


@pytest.mark.parametrize("command", COMMANDS)
def test_hpa_reads_as_kubectl(sides, command):
    kubectl, kubelite = sides
    theirs, ours = kubectl.run(*shlex.split(command)), kubelite.run(*shlex.split(command))
    assert (ours.returncode, _masked(ours.stdout), _masked(ours.stderr)) == \
        (theirs.returncode, _masked(theirs.stdout), _masked(theirs.stderr))


def test_the_controller_did_its_work(sides):
    kubectl, _ = sides
    replicas = kubectl.run("get", "deployment", "web", "mem", "bare", "-o", "jsonpath={.items[*].spec.replicas}")
    assert replicas.stdout == "3 3 1"
    described = kubectl.run("describe", "hpa", "web").stdout
    assert "resource cpu on pods  (as a percentage of request):  120% (120m) / 50%" in described
    assert "New size: 3; reason: cpu resource utilization (percentage of request) above target" in described
    bare = kubectl.run("describe", "hpa", "bare").stdout
    assert "missing request for cpu in container nginx of Pod bare-" in bare
