"""Differential: `kubelite describe` prints the same bytes as kubectl describe for the same
objects on the same `kubelite serve` (the recorded corpus' rich and minimal inputs, a custom
resource through the generic describer, name prefixes, lists, -f, -l, errors)."""
from __future__ import annotations

import pathlib
import time

import pytest

INPUTS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "describe" / "inputs"
NS = "describe-diff"
ORDER = ["configmap-rich", "secret-opaque-stringdata", "secret-tls", "secret-dockerconfigjson", "deployment-rich",
         "job-rich", "job-minimal", "pod-rich", "pod-minimal", "service-clusterip-rich", "service-loadbalancer-rich",
         "service-headless", "service-externalname-minimal", "endpointslice-rich", "limitrange-rich",
         "resourcequota-rich", "replicaset-rich"]

COMMANDS = [
    ["describe", "configmap", "configmap-rich"], ["describe", "secrets"], ["describe", "deployment/deployment-rich"],
    ["describe", "jobs"], ["describe", "pod", "pod-rich"], ["describe", "pod", "pod-minimal"],
    ["describe", "service"], ["describe", "replicaset", "replicaset-rich"], ["describe", "widgets"],
    ["describe", "ns", NS], ["describe", "pods", "pod-"], ["describe", "service", "nope"], ["describe", "nope"],
    ["describe", "-f", str(INPUTS / "configmap-rich.in.yaml")], ["describe", "deployments", "-l", "app=nope"],
    ["describe", "endpointslices"], ["describe", "limitranges"], ["describe", "resourcequotas"],
    ["describe", "deployment", "deployment-rich"], ["describe", "endpointslice", "endpointslice-rich",
                                                    "--show-events=false"],
]
# Objects besides the recorded inputs: what a cluster's controllers would have made (quota status,
# the deployment's ReplicaSets, events), made by hand on an API server alone (`served` below runs
# no controllers, which would otherwise replace them); test_running_workloads_match_kubectl
# compares what the controllers themselves make.
EXTRA = """\
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: endpointslice-bare}
addressType: FQDN
endpoints: []
---
apiVersion: v1
kind: LimitRange
metadata: {name: limitrange-one}
spec:
  limits:
  - type: Container
    max: {cpu: 500m}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: resourcequota-scoped}
spec:
  hard: {pods: "5", requests.memory: 1Gi, limits.cpu: "2"}
  scopes: [NotBestEffort, Terminating]
"""
QUOTA_STATUS = {"resourcequota-rich": {"hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi"},
                                       "used": {"pods": "3", "requests.cpu": "1500m", "limits.memory": "512Mi"}},
                "resourcequota-scoped": {"hard": {"pods": "5", "requests.memory": "1Gi", "limits.cpu": "2"},
                                         "used": {"pods": "0", "requests.memory": "1048576", "limits.cpu": "2"}}}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`kubelite serve --controllers=-*`: the hand-made objects stay as made."""
    from test_serve_support import serving

    with serving(tmp_path_factory.mktemp("bare"), "--controllers=-*") as server:
        yield server


@pytest.fixture(scope="module")
def described(served, tmp_path_factory):
    import shutil

    from cli_support import CLI, KUBECTL

    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    home = tmp_path_factory.mktemp("describe")
    kubectl = CLI(home, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(home / "c")])
    setup = home / "ns.yaml"
    setup.write_text(f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: {NS}}}\n---\n"
                     f"apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: default, namespace: {NS}}}\n")
    assert kubectl.run("apply", "-f", str(setup)).returncode == 0
    for name in ORDER:
        r = kubectl.run("-n", NS, "create", "-f", str(INPUTS / f"{name}.in.yaml"))
        assert r.returncode == 0, (name, r.stderr)
    assert kubectl.run("create", "-f", str(INPUTS / "crd-rich.in.yaml")).returncode == 0
    for _ in range(50):
        if kubectl.run("-n", NS, "create", "-f", str(INPUTS / "cr-rich.in.yaml")).returncode == 0:
            break
        time.sleep(0.2)
    _controllers_work(kubectl, home)
    return kubectl


def _controllers_work(kubectl, home) -> None:
    import json

    extra = home / "extra.yaml"
    extra.write_text(EXTRA)
    assert kubectl.run("-n", NS, "create", "-f", str(extra)).returncode == 0
    for name, status in QUOTA_STATUS.items():
        r = kubectl.run("-n", NS, "patch", "resourcequota", name, "--subresource=status", "--type=merge",
                        "-p", json.dumps({"status": status}))
        assert r.returncode == 0, r.stderr
    deployment = json.loads(kubectl.run("-n", NS, "get", "deploy", "deployment-rich", "-o", "json").stdout)
    owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "deployment-rich",
             "uid": deployment["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
    template = json.loads(json.dumps(deployment["spec"]["template"]))
    template["metadata"].setdefault("labels", {})["pod-template-hash"] = "5d4c8f7b9"
    old = json.loads(json.dumps(template))
    old["metadata"]["labels"]["pod-template-hash"] = "6b7f9c5d8"
    old["spec"]["containers"][0]["image"] = "example/old:1"
    items = []
    for name, tmpl, replicas in (("deployment-rich-5d4c8f7b9", template, 3), ("deployment-rich-6b7f9c5d8", old, 0)):
        selector = json.loads(json.dumps(deployment["spec"]["selector"]))
        selector.setdefault("matchLabels", {})["pod-template-hash"] = tmpl["metadata"]["labels"]["pod-template-hash"]
        items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "metadata": {"name": name, "labels": tmpl["metadata"]["labels"], "ownerReferences": [owner]},
                      "spec": {"replicas": replicas, "selector": selector, "template": tmpl}})
    slice_ = json.loads(kubectl.run("-n", NS, "get", "endpointslice", "endpointslice-rich", "-o", "json").stdout)
    for index, (kind, name, uid, api) in enumerate((
            ("Deployment", "deployment-rich", deployment["metadata"]["uid"], "apps/v1"),
            ("EndpointSlice", "endpointslice-rich", slice_["metadata"]["uid"], "discovery.k8s.io/v1"))):
        items.append({"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{name}.event{index}"},
                      "involvedObject": {"kind": kind, "name": name, "namespace": NS, "uid": uid, "apiVersion": api},
                      "reason": "Tested", "message": f"something about {name}", "type": "Normal",
                      "source": {"component": "test-controller"}, "count": 1,
                      "firstTimestamp": "2024-01-01T00:00:00Z", "lastTimestamp": "2024-01-01T00:00:00Z"})
    path = home / "owned.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    r = kubectl.run("-n", NS, "create", "-f", str(path))
    assert r.returncode == 0, r.stderr


@pytest.mark.kubectl
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[1:]).replace(str(INPUTS) + "/", ""))
def test_describe_matches_kubectl(described, served, tmp_path, argv):
    from cli_support import CLI, kubelite_argv

    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    want = described.run("-n", NS, *argv)
    got = kubelite.run("-n", NS, *argv)
    assert got.returncode == want.returncode
    assert got.stderr == want.stderr
    # kubectl 1.32 walks a secret's and a config map's data maps in Go's random order
    if argv[1] in ("secrets", "configmap") or "configmap-rich.in.yaml" in argv[-1]:
        assert sorted(got.stdout.splitlines()) == sorted(want.stdout.splitlines())
        return
    assert got.stdout.splitlines() == want.stdout.splitlines()
    assert got.stdout == want.stdout


def test_describe_embedded(embedded, tmp_path):
    r = embedded.run("create", "-f", str(INPUTS / "configmap-rich.in.yaml"))
    assert r.returncode == 0, r.stderr
    r = embedded.run("describe", "cm", "configmap-rich")
    assert r.returncode == 0
    assert r.stdout.startswith("Name:         configmap-rich\nNamespace:    default\nLabels:       app=demo\n")
    assert r.stdout.endswith("\nBinaryData\n====\nblob: 5 bytes\n\nEvents:  <none>\n")
    r = embedded.run("describe", "cm", "zzz")
    assert (r.returncode, r.stderr) == (1, 'Error from server (NotFound): configmaps "zzz" not found\n')


@pytest.mark.kubectl
def test_deployment_replica_sets_and_events_are_shown(described, served, tmp_path):
    """The objects made for the comparisons above do show up (so those compare something)."""
    from cli_support import CLI, kubelite_argv

    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    text = kubelite.run("-n", NS, "describe", "deployment", "deployment-rich").stdout
    assert "OldReplicaSets:    deployment-rich-6b7f9c5d8 (0/0 replicas created)\n" in text
    assert "NewReplicaSet:     deployment-rich-5d4c8f7b9 (0/3 replicas created)\n" in text
    assert "Normal  Tested" in text and "test-controller  something about deployment-rich" in text
    text = kubelite.run("-n", NS, "describe", "endpointslice", "endpointslice-rich").stdout
    assert "something about endpointslice-rich" in text
    text = kubelite.run("-n", NS, "describe", "resourcequota", "resourcequota-scoped").stdout
    assert "requests.memory  1Mi   1Gi\n" in text


RUNNING = "describe-running"


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """A `kubelite serve` with its controllers, a Deployment rolled out and a Job complete, and
    kubectl to it: the state describe reads no longer changes."""
    import shutil

    from cli_support import CLI, KUBECTL
    from test_serve_support import serving

    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    base = tmp_path_factory.mktemp("running")
    with serving(base) as server:
        kubectl = CLI(base, [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(base / "c")])
        for argv in (["create", "namespace", RUNNING],
                     ["-n", RUNNING, "create", "deployment", "web", "--image=nginx:1.25", "--replicas=2"],
                     ["-n", RUNNING, "create", "job", "once", "--image=busybox"],
                     ["-n", RUNNING, "rollout", "status", "deployment/web", "--timeout=120s"],
                     ["-n", RUNNING, "wait", "--for=condition=Complete", "job/once", "--timeout=120s"]):
            r = kubectl.run(*argv)
            assert r.returncode == 0, (argv, r.stderr)
        yield server, kubectl


@pytest.mark.kubectl
@pytest.mark.parametrize("argv", [["pods"], ["deployment", "web"], ["replicasets"], ["job", "once"]],
                         ids=" ".join)
def test_running_workloads_match_kubectl(running, tmp_path, argv):
    """Objects the controllers made and updated (running containers, pod conditions, a rolled-out
    Deployment, a complete Job) describe as kubectl describes them."""
    from cli_support import CLI, kubelite_argv

    server, kubectl = running
    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(server.kubeconfig)])
    want = kubectl.run("-n", RUNNING, "describe", *argv)
    got = kubelite.run("-n", RUNNING, "describe", *argv)
    assert (got.returncode, got.stderr) == (want.returncode, want.stderr)
    assert "Events:  <none>" not in want.stdout  # the events tables below are compared too
    assert _event_ages_masked(got.stdout) == _event_ages_masked(want.stdout)


def _event_ages_masked(text: str) -> list[str]:
    """describe's lines with each event's Age (time since, read at a different second by the two
    runs, and the column widths that follow from it) masked; everything else as printed."""
    import re

    lines, in_events = [], False
    for line in text.splitlines():
        if line.startswith("Events:"):
            in_events = True
        elif not line.startswith("  "):
            in_events = False
        elif in_events:  # the heading, the rule and the rows: fields without their padding
            fields = re.split(r" {2,}", line.strip())
            if fields[0] in ("Normal", "Warning") and len(fields) >= 4:
                fields[2] = "<age>"
            line = "  " + " | ".join(fields)
        lines.append(line)
    return lines
