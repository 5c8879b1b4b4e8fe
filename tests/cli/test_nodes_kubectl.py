"""Differential: cordon, uncordon, taint, drain and top print the same bytes and exit codes as
/usr/bin/kubectl against the same `kubelite serve` (four simulated nodes).

kubectl works on node-a/node-b and namespace k, kubelite on node-c/node-d and namespace l, both
sides holding the same objects, so each command meets the same state; those names, generated pod
name suffixes, and the order of what kubectl prints from Go maps or goroutines (drain's warnings,
errors and evictions) are the only things normalised.
"""
from __future__ import annotations

import re
import shlex
import shutil
import sys
import time

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "server"))
from test_serve_support import Served  # noqa: E402

pytestmark = pytest.mark.kubectl

SIDES = {"kubectl": {"ns": "k", "n1": "node-a", "n2": "node-b"},
         "kubelite": {"ns": "l", "n1": "node-c", "n2": "node-d"}}

WORKLOADS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {nodeName: N1, containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache}
spec:
  replicas: 1
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      nodeName: N1
      containers: [{name: c, image: redis}]
      volumes: [{name: scratch, emptyDir: {}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {side: SIDE}
      containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: bare, labels: {app: bare}}
spec: {nodeName: N1, containers: [{name: c, image: nginx}]}
"""

NODE_COMMANDS = [
    "cordon N1", "cordon N1", "cordon N1 --dry-run=client", "cordon N1 --dry-run=server", "uncordon N1",
    "uncordon N1", "cordon nope", "cordon", "cordon -l side=SIDE", "uncordon -l side=SIDE", "cordon -l nope=x",
    "cordon N1 -l a=b", "cordon N1 N2", "uncordon N1 nope", "uncordon N1 N2", "cordon node/N1", "uncordon node/N1",
    "cordon N1 --dry-run=bogus",
    "taint nodes N1 dedicated=special:NoSchedule", "taint nodes N1 dedicated=special:NoSchedule",
    "taint nodes N1 dedicated=other:NoSchedule", "taint nodes N1 dedicated=other:NoSchedule --overwrite",
    "taint nodes N1 dedicated:NoSchedule-", "taint nodes N1 dedicated-", "taint nodes N1 foo=bar", "taint nodes N1",
    "taint N1 x=y:NoSchedule", "taint nodes -l side=SIDE k=v:PreferNoSchedule", "taint nodes -l side=SIDE k-",
    "taint nodes nope a=b:NoSchedule", "taint pods x a=b:NoSchedule", "taint nodes N1 a=b:Bad",
    "taint nodes N1 a=b:NoSchedule a-", "taint nodes N1 'a=b c:NoSchedule'", "taint nodes", "taint",
    "taint nodes --all -l a=b k=v:NoSchedule", "taint nodes N1 k=v:NoSchedule -o jsonpath={.spec.taints} --dry-run=client",
    "taint nodes N1 k=v:NoSchedule -o name", "taint nodes N1 k=v:NoSchedule k=w:NoSchedule",
    "taint nodes N1 k=v:NoSchedule,z=y:NoSchedule", "taint no N1 k-", "taint node N1 N2 k2=v:NoExecute",
    "taint node N1 nope k3=v:NoExecute", "taint nodes N1 k2:NoExecute- k3-", "taint nodes N1 k2=v:NoExecute x",
    "taint nodes N2 k2:NoExecute-", "taint nodes N1 t1=a:NoSchedule t2:NoExecute -o jsonpath={.spec.taints}",
    "taint nodes N1 t1- t2-",
    # Listings of every node or pod differ between the two sides by their names' widths: those are
    # compared in test_top_kubectl.py on one shared state.
    "top nodes N1",
]

DRAIN_COMMANDS = [
    "drain", "drain N1 -l a=b", "drain -l side=nope", "drain N1 --pod-selector='a in ('",
    "drain N1 --dry-run=bogus", "drain N1", "uncordon N1",
    "drain N1 --ignore-daemonsets", "drain N1 --ignore-daemonsets --delete-emptydir-data",
    "drain N1 --ignore-daemonsets --delete-emptydir-data --force --dry-run=client",
    "drain N1 --ignore-daemonsets --delete-emptydir-data --force --dry-run=server",
    "drain N1 --ignore-daemonsets --delete-emptydir-data --force --timeout=60s",
    "drain N1 --ignore-daemonsets", "uncordon N1",
]

_VOLATILE = re.compile(r'^\s*(creationTimestamp: "\d|resourceVersion:|uid:|time:|lastHeartbeatTime:|'
                       r'lastTransitionTime:|renewTime:)')


@pytest.fixture(scope="module")
def four_nodes(tmp_path_factory):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    base = tmp_path_factory.mktemp("nodes")
    server = Served(base / "data", base / "kubeconfig", ("--nodes", "4")).start()
    try:
        kubectl = CLI(base, [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(base / "c")])
        kubelite = CLI(base, kubelite_argv() + ["--kubeconfig", str(server.kubeconfig)])
        # /readyz answers before the controller manager (leader-elected) registers the nodes.
        nodes = [f"node/{side[n]}" for side in SIDES.values() for n in ("n1", "n2")]
        made = kubectl.run("wait", "--for=create", "--timeout=60s", *nodes)
        assert made.returncode == 0, made.stderr
        for side in SIDES.values():
            for node in (side["n1"], side["n2"]):
                assert kubectl.run("label", "node", node, f"side={side['ns']}").returncode == 0
            assert kubectl.run("create", "namespace", side["ns"]).returncode == 0
            made = kubectl.run("-n", side["ns"], "create", "-f", "-", stdin=_fill(WORKLOADS, side))
            assert made.returncode == 0, made.stderr
        for side in SIDES.values():
            _wait_running(kubectl, side["ns"], 5)
        yield kubectl, kubelite
    finally:
        server.stop()


def _wait_running(kubectl: CLI, ns: str, count: int) -> None:
    # `wait --all` waits for the pods there are: first wait for the controllers to create them all.
    deadline = time.monotonic() + 60
    pods = []
    while time.monotonic() < deadline:
        pods = kubectl.run("-n", ns, "get", "pods", "-o", "name").stdout.split()
        if len(pods) >= count:
            break
        time.sleep(0.2)
    assert len(pods) == count, pods
    r = kubectl.run("-n", ns, "wait", "--for=jsonpath={.status.phase}=Running", "pods", "--all", "--timeout=60s")
    assert r.returncode == 0, r.stderr


def _fill(text: str, side: dict) -> str:
    return text.replace("SIDE", side["ns"]).replace("N1", side["n1"]).replace("N2", side["n2"])


def _normal(text: str, side: dict) -> str:
    text = re.sub(rf"\b{side['n1']}\b", "N1", text)
    text = re.sub(rf"\b{side['n2']}\b", "N2", text)
    text = re.sub(rf"(?<![\w-]){side['ns']}/", "NS/", text).replace(f'-n "{side["ns"]}"', '-n "NS"')
    text = text.replace(f"side={side['ns']}", "side=SIDE").replace(f"side: {side['ns']}", "side: SIDE")
    text = re.sub(r"-[a-z0-9]{8,10}-[a-z0-9]{5}\b", "-<rs>-<x>", text)
    text = re.sub(r"\b(agent)-[a-z0-9]{5}\b", r"\1-<x>", text)
    return "".join(line for line in text.splitlines(keepends=True) if not _VOLATILE.match(line))


def _unordered(text: str) -> list[str]:
    """Lines sorted, and the items of `[a, b]` aggregates and `; `-joined warnings sorted: Go map
    and goroutine order."""
    lines = []
    for line in text.splitlines():
        line = re.sub(r"\[(.*)\]", lambda m: "[" + ", ".join(sorted(m.group(1).split(", "))) + "]", line)
        if line.startswith("Warning: "):
            line = "Warning: " + "; ".join(sorted(line[len("Warning: "):].split("; ")))
        lines.append(line)
    return sorted(lines)


def _compare(kubectl: CLI, kubelite: CLI, commands: list[str], unordered: bool) -> list:
    mismatches = []
    for command in commands:
        results = {}
        for who, cli in (("kubectl", kubectl), ("kubelite", kubelite)):
            side = SIDES[who]
            r = cli.run("-n", side["ns"], *shlex.split(_fill(command, side)))
            out, err = _normal(r.stdout, side), _normal(r.stderr, side).replace("'kubectl ", "'kubelite ")
            results[who] = (r.returncode, _unordered(out), _unordered(err)) if unordered else (r.returncode, out, err)
        if results["kubectl"] != results["kubelite"]:
            mismatches.append((command, results["kubectl"], results["kubelite"]))
    return mismatches


def _report(mismatches) -> str:
    return "\n\n".join(f"{c}\nkubectl:  {e!r}\nkubelite: {a!r}" for c, e, a in mismatches)


def test_cordon_taint_top_match_kubectl(four_nodes):
    kubectl, kubelite = four_nodes
    mismatches = _compare(kubectl, kubelite, NODE_COMMANDS, unordered=False)
    assert not mismatches, _report(mismatches)


def test_drain_matches_kubectl(four_nodes):
    kubectl, kubelite = four_nodes
    bare = WORKLOADS.split("---\n")[-1]
    for side in SIDES.values():  # NoExecute taints of the node commands may have evicted it
        assert kubectl.run("-n", side["ns"], "apply", "-f", "-", stdin=_fill(bare, side)).returncode == 0
        r = kubectl.run("-n", side["ns"], "wait", "--for=jsonpath={.status.phase}=Running", "pod/bare",
                        "--timeout=60s")
        assert r.returncode == 0, r.stderr
    split = DRAIN_COMMANDS.index("drain N1 --ignore-daemonsets --delete-emptydir-data --force --timeout=60s")
    mismatches = _compare(kubectl, kubelite, DRAIN_COMMANDS[:split], unordered=True)
    for side in SIDES.values():  # the dry runs evicted nothing
        assert kubectl.run("-n", side["ns"], "get", "pod", "bare").returncode == 0
    mismatches += _compare(kubectl, kubelite, DRAIN_COMMANDS[split:], unordered=True)
    assert not mismatches, _report(mismatches)
    for side in SIDES.values():  # the evicted pods are gone, the DaemonSet's stays
        pods = kubectl.run("-n", side["ns"], "get", "pods", "--field-selector", f"spec.nodeName={side['n1']}",
                           "-o", "jsonpath={.items[*].metadata.labels.app}").stdout.split()
        assert "bare" not in pods and "agent" in pods
