"""Differential: exec, attach, port-forward, cp and debug through kubelite and /usr/bin/kubectl against
the same `kubelite serve`, whose nodes' kubelets cannot be reached: the same refusals, messages and
exit codes (never a bare 404)."""
from __future__ import annotations

import re

import pytest

from pod_cli_support import both, prepared

pytestmark = pytest.mark.kubectl

CASES = [
    ("exec", "web", "--", "ls"), ("exec", "-i", "-t", "web", "--", "sh"), ("exec", "two", "-c", "b", "--", "ls"),
    ("exec", "two", "--", "ls"), ("exec", "deployment/dep", "--", "date"), ("exec", "web"),
    ("exec", "nope", "--", "ls"), ("exec", "web", "-c", "zz", "--", "ls"), ("exec",),
    ("attach", "web"), ("attach", "web", "-q"), ("attach", "-i", "-t", "web"), ("attach", "nope"), ("attach", "two", "-c", "b"),
    ("port-forward", "pod/web", "8080:80"), ("port-forward", "pod/web", ":http"), ("port-forward", "pod/web"),
    ("port-forward", "deployment/dep", "9000:80"), ("port-forward", "pod/web", "1:nope"),
    ("cp", "web:/etc/hosts", "{tmp}/hosts"), ("cp", "{tmp}/x", "web:/tmp/x"), ("cp", "web:/etc/hosts"),
    ("cp", "nope:/etc/hosts", "{tmp}/hosts"),
    ("debug", "web", "--image=busybox", "--profile=general"), ("debug", "web"),
    ("debug", "-i", "-t", "web", "--image=busybox", "--profile=general"),
    ("debug", "nope", "--image=busybox", "--profile=general"),
]


@pytest.fixture(scope="module")
def ready(served, tmp_path_factory):
    return prepared(served, tmp_path_factory, "exec")


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "no-args")
def test_as_kubectl(ready, remote, kubectl, args, tmp_path):
    (tmp_path / "x").write_text("x")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    ours, theirs = both(remote, kubectl, *args)
    # debug names its container debugger-<random>
    ours, theirs = [re.sub(r"debugger-[a-z0-9]{5}", "debugger-X", repr(r)) for r in (ours, theirs)]
    assert ours == theirs


def test_the_refusal_names_the_kubelet_address(ready, remote):
    done = remote.run("exec", "web", "-c", "nginx", "--", "ls")
    assert (done.returncode, done.stderr) == (
        1, "Error from server: error dialing backend: dial tcp 127.0.0.1:10250: connect: connection refused\n")


def test_debugging_a_node_starts_a_pod_on_it(ready, remote, kubectl):
    done = remote.run("debug", "node/node-a", "--image=busybox:1.36", "--profile=general")
    assert done.returncode == 0, done.stderr
    name = re.fullmatch(r"Creating debugging pod (node-debugger-node-a-\w{5}) with container debugger on node "
                        r"node-a\.\n", done.stdout).group(1)
    got = kubectl.run("get", "pod", name, "-o", "jsonpath={.spec.nodeName} {.spec.hostPID} {.spec.volumes[0]}")
    assert got.stdout.startswith('node-a true {"hostPath":{"path":"/"')
