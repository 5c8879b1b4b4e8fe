"""Differential: logs, exec, attach and port-forward of pods that are not simply running — unscheduled,
bound to a node that does not exist, completed (a Job's) — through kubelite and /usr/bin/kubectl
against the same `kubelite serve`."""
from __future__ import annotations

import re

import pytest

from pod_cli_support import both

pytestmark = pytest.mark.kubectl

PODS = """\
apiVersion: v1
kind: Pod
metadata: {name: pend}
spec:
  nodeSelector: {no: such}
  containers: [{name: c, image: nginx:1.24}]
---
apiVersion: v1
kind: Pod
metadata: {name: lost}
spec:
  nodeName: ghost
  containers: [{name: c, image: nginx:1.24}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox:1.36, command: [echo, finished]}]
"""


@pytest.fixture(scope="module")
def ready(served, tmp_path_factory):
    from cli_support import CLI, KUBECTL

    tmp = tmp_path_factory.mktemp("edge")
    kubectl = CLI(tmp, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp / "cache")])
    (tmp / "pods.yaml").write_text(PODS)
    assert kubectl.run("apply", "-f", str(tmp / "pods.yaml")).returncode == 0
    done = kubectl.run("wait", "--for=condition=Complete", "job/once", "--timeout=60s")
    assert done.returncode == 0, done.stderr
    return kubectl.run("get", "pods", "-l", "job-name=once", "-o", "name").stdout.strip()


CASES = [("logs", "pend"), ("logs", "{job}"), ("logs", "job/once"), ("logs", "{job}", "-p"), ("logs", "lost"),
         ("exec", "lost", "--", "ls"), ("exec", "{job}", "--", "ls"), ("exec", "pend", "--", "ls"),
         ("attach", "pend"), ("attach", "{job}"), ("port-forward", "pod/pend", "80"),
         ("events", "--types=Warning")]


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_as_kubectl(ready, remote, kubectl, args):
    args = [a.replace("{job}", ready) for a in args]
    ours, theirs = both(remote, kubectl, *args)
    assert ours == theirs
    if args[:2] == ["logs", "job/once"]:
        assert ours[1] == "finished\n"
    if args[0] == "exec" and args[1] == "lost":
        assert re.search(r'nodes "ghost" not found', ours[2])
