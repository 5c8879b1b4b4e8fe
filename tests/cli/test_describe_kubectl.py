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
]


@pytest.fixture(scope="module")
def described(served, tmp_path_factory):
    import shutil

    from conftest import CLI, KUBECTL

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
    return kubectl


@pytest.mark.kubectl
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[1:]).replace(str(INPUTS) + "/", ""))
def test_describe_matches_kubectl(described, served, tmp_path, argv):
    from conftest import CLI, kubelite_argv

    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    want = described.run("-n", NS, *argv)
    got = kubelite.run("-n", NS, *argv)
    assert got.returncode == want.returncode
    assert got.stderr == want.stderr
    if argv[1] == "secrets":  # kubectl walks a secret's data map in Go's random order
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
