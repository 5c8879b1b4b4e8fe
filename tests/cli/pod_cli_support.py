"""Differential runs of the pod-level commands (logs, events, wait, exec & co.): the same
arguments through kubelite and /usr/bin/kubectl against one `kubelite serve`."""
from __future__ import annotations

import re

from cli_support import without_reflector_noise

PODS = """\
apiVersion: v1
kind: Pod
metadata:
  name: two
  labels: {app: two}
spec:
  initContainers:
  - {name: init, image: busybox:1.36, command: [sh, -c, "echo init done"]}
  containers:
  - {name: a, image: busybox:1.36, command: [echo, hello from a]}
  - {name: b, image: busybox:1.36, args: [sleep, "3600"]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
  annotations:
    sim.kubelite.io/log: |-
      first line
      second line
      third line
spec:
  containers:
  - {name: nginx, image: nginx:1.24, ports: [{name: http, containerPort: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep}
spec:
  replicas: 2
  selector: {matchLabels: {app: dep}}
  template:
    metadata: {labels: {app: dep}}
    spec:
      containers:
      - {name: c, image: busybox:1.36, command: [sh, -c, "echo one; echo two && echo three"]}
"""

_AGE = re.compile(r"(?m)^(\S+\s+)?\d+(s|m\d*s?|h\d*m?|d\d*h?)(\s+\(x\d+ over \S+\))?(?=\s)")


def normalised(text: str) -> str:
    """Ages (LAST SEEN) out of event tables, kubectl's name out of messages."""
    return _AGE.sub(lambda m: (m.group(1) or "") + "<age>", text).replace("kubectl", "kubelite")


def setup(kubectl, tmp_path) -> None:
    manifest = tmp_path / "pods.yaml"
    manifest.write_text(PODS)
    done = kubectl.run("apply", "-f", str(manifest))
    assert done.returncode == 0, done.stderr
    ready = kubectl.run("wait", "--for=condition=Ready", "pod/two", "pod/web", "--timeout=60s")
    assert ready.returncode == 0, ready.stderr
    available = kubectl.run("wait", "--for=condition=Available", "deployment/dep", "--timeout=60s")
    assert available.returncode == 0, available.stderr


def both(remote, kubectl, *args: str) -> tuple:
    ours, theirs = remote.run(*args), kubectl.run(*args)
    return ((ours.returncode, normalised(ours.stdout), normalised(ours.stderr)),
            (theirs.returncode, normalised(theirs.stdout), normalised(without_reflector_noise(theirs.stderr))))


def prepared(served, tmp_path_factory, name: str) -> bool:
    """The module's `kubelite serve` with PODS applied and running (for a module-scoped fixture)."""
    from cli_support import CLI, KUBECTL

    tmp = tmp_path_factory.mktemp(name)
    setup(CLI(tmp, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp / "cache")]), tmp)
    return True
