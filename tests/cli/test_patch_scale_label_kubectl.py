"""Differential: patch, scale, label and annotate print the same bytes and exit codes as
/usr/bin/kubectl against the same `kubelite serve`.

kubectl works in namespace `k`, kubelite in namespace `l`, both holding the same objects, so
that each command meets the same state; the namespace names are the only thing normalised.
Volatile metadata (uid, timestamps, resourceVersion) is dropped from -o yaml outputs.
"""
from __future__ import annotations

import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv
from test_serve_support import namespaces_only_cluster  # noqa: F401 (a fixture)

pytestmark = pytest.mark.kubectl

SETUP = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d2
  labels: {app: d2}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: d2
  template:
    metadata:
      labels:
        app: d2
    spec:
      containers:
        - name: c
          image: nginx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d3
spec:
  replicas: 2
  selector:
    matchLabels:
      app: d3
  template:
    metadata:
      labels:
        app: d3
    spec:
      containers:
        - name: c
          image: nginx
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
data: {a: b}
"""

# Run in order; each one sees the state the previous ones left (identically on both sides).
COMMANDS = [
    # label
    "label deployment d2", "label deployment d2 a=b", "label deployment d2 a=b", "label deployment d2 a=c",
    "label deployment d2 a=c b=d --overwrite", "label deployment d2 a-", "label deployment d2 zz-",
    "label configmap cm1 zz-", "label deployment d2 --list", "label deployment d2 --list -o yaml",
    "label deployment d2 a=b=c", "label deployment d2 a=b a-", "label deployment d2 x=y --resource-version=1",
    "label deployment d2 x=y --dry-run=client", "label deployment d2 x=y --dry-run=server",
    "label deployment --all x=y", "label deployment --all x=y -l a=b", "label deployment -l app=d2 x=z --overwrite",
    "label deployment d2 nope x=w --overwrite", "label deployment d2 d3 x=w --overwrite --resource-version=3",
    "label -f {setup} --local q=r", "label -f {setup} --local q=r -o yaml", "label deployment d2 --local q=r",
    "label configmap cm1 x=y -o name", "label deployment d2 x=y =z", "label deployment d2 x=y z",
    "label deployment d2 d3 x=y -o yaml", "label deployment d2 bad=a/b", "label deployment d2",
    # annotate
    "annotate deployment d2", "annotate deployment d2 a=b", "annotate deployment d2 a=b", "annotate deployment d2 a=c",
    "annotate deployment d2 a-", "annotate deployment d2 zz-", "annotate deployment d2 a=b=c",
    "annotate deployment d2 x=y --resource-version=1", "annotate deployment d2 x=y --dry-run=client",
    "annotate deployment d2 x=y x-", "annotate deployment d2 d3 x=w --overwrite", "annotate deployment d2 d3 x=w y=z",
    "annotate -f {setup} --local q=r -o yaml", "annotate deployment d2 x=y --all", "annotate deployment d2 x- -o name",
    "annotate configmap cm1 one=1 --list",
    # scale
    "scale deployment d2 --replicas=-1", "scale deployment d2 --replicas=3",
    "scale deployment d2 --replicas=3 --current-replicas=2", "scale deployment d2 d3 --replicas=3 --resource-version=1",
    "scale deployment d2 d3 --replicas=4 --current-replicas=3", "scale deployment --all --replicas=1",
    "scale deployment --all --replicas=1 --dry-run=client", "scale deployment --all --replicas=2 --dry-run=server",
    "scale deployment -l app=nope --replicas=2", "scale configmap cm1 --replicas=2", "scale deployment nope --replicas=2",
    "scale deployment nope nope2 --replicas=2", "scale deployment d2 nope d3 --replicas=2",
    "scale deployment --replicas=2", "scale --replicas=2", "scale deployment/d2 --replicas=2 -o name",
    "scale -f {setup} --replicas=2", "scale deployment/d2 --replicas=5 -o yaml",
    "scale deployment/d2 --replicas=5 --current-replicas=5", "scale -f {setup} --replicas=2 -o yaml",
    # patch
    "patch deployment d2 -p '{\"spec\":{\"replicas\":3}}'", "patch deployment d2 -p '{\"spec\":{\"replicas\":3}}'",
    "patch deployment d2 -p '{\"spec\":{\"replicas\":4}}' --dry-run=client",
    "patch deployment d2 -p '{\"spec\":{\"replicas\":4}}' --dry-run=server -o name",
    "patch deployment nope -p '{}'", "patch deployment d2", "patch deployment d2 -p '{}' --type foo",
    "patch deployment -p '{}'", "patch -p '{}'", "patch deployment d2 -p 'a: ['", "patch deployment d2 --local -p '{}'",
    "patch -f {setup} -p '{\"metadata\":{\"labels\":{\"q\":\"s\"}}}'",
    "patch -f {setup} -p '{\"metadata\":{\"labels\":{\"q\":\"t\"}}}' --local -o yaml",
    "patch -f {setup} -p '{\"metadata\":{\"labels\":{\"q\":\"t\"}}}' --local",
    "patch deployment d2 --subresource=scale -p '{\"spec\":{\"replicas\":5}}'",
    "patch deployment d2 --subresource=scale -p '{\"spec\":{\"replicas\":5}}'",
    "patch deployment d2 --type merge -p '{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"x\",\"image\":\"y\"}]}}}}'",
    "patch deployment d2 --type json -p '[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":1}]' -o yaml",
    "patch deployment/d2 deployment/nope -p '{\"metadata\":{\"labels\":{\"z\":\"z\"}}}'",
    "patch configmap cm1 --type json -p '[{\"op\":\"add\",\"path\":\"/data/n\",\"value\":\"1\"}]' -o json",
]

_VOLATILE = re.compile(r'^\s*(creationTimestamp: "\d|resourceVersion:|uid:|time:|"creationTimestamp": "\d|'
                       r'"resourceVersion":|"uid":|"time":)')


def _normal(text: str, namespace: str) -> str:
    text = text.replace(f'"{namespace}"', "NS").replace(f"namespace: {namespace}\n", "namespace: NS\n")
    return "".join(line for line in text.splitlines(keepends=True) if not _VOLATILE.match(line))


def _argv(command: str, setup: pathlib.Path) -> list[str]:
    return [part.replace("{setup}", str(setup)) for part in shlex.split(command)]


@pytest.fixture(scope="module")
def served(namespaces_only_cluster):
    """The commands' -o yaml outputs carry the Deployments' status: with a deployment controller
    it says how far the rollout in `k` and in `l` had got at that instant, not what either tool
    does, so the comparison runs where no controller writes them."""
    return namespaces_only_cluster


@pytest.fixture
def two_namespaces(served, tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    kubectl = CLI(tmp_path, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "c")])
    setup = tmp_path / "setup.yaml"
    setup.write_text(SETUP)
    ns = tmp_path / "ns.yaml"
    ns.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: k}\n---\n"
                  "apiVersion: v1\nkind: Namespace\nmetadata: {name: l}\n")
    assert kubectl.run("apply", "-f", str(ns)).returncode == 0
    for name in ("k", "l"):
        r = kubectl.run("-n", name, "create", "-f", str(setup))
        assert r.returncode == 0, r.stderr
    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    yield kubectl, kubelite, setup
    kubectl.run("delete", "-f", str(ns), "--wait=false")


def test_object_commands_match_kubectl(two_namespaces):
    kubectl, kubelite, setup = two_namespaces
    mismatches = []
    for command in COMMANDS:
        argv = _argv(command, setup)
        want = kubectl.run("-n", "k", *argv)
        got = kubelite.run("-n", "l", *argv)
        expected = (want.returncode, _normal(want.stdout, "k"), _normal(want.stderr, "k"))
        actual = (got.returncode, _normal(got.stdout, "l"), _normal(got.stderr, "l"))
        if "--list" in argv and expected != actual:  # kubectl lists a Go map in random order
            expected = (expected[0], sorted(expected[1].splitlines()), expected[2])
            actual = (actual[0], sorted(actual[1].splitlines()), actual[2])
        if expected != actual:
            mismatches.append((command, expected, actual))
    assert not mismatches, "\n\n".join(f"{c}\nkubectl:  {e!r}\nkubelite: {a!r}" for c, e, a in mismatches)


def test_scale_requires_replicas(embedded):
    r = embedded.run("scale", "deployment", "x")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", 'error: required flag(s) "replicas" not set\n')


def test_label_and_annotate_embedded(embedded, tmp_path):
    setup = tmp_path / "setup.yaml"
    setup.write_text(SETUP)
    assert embedded.run("create", "-f", str(setup)).returncode == 0
    r = embedded.run("label", "deployment", "d2", "app=x")
    assert (r.returncode, r.stderr) == (1, "error: 'app' already has a value (d2), and --overwrite is false\n")
    r = embedded.run("label", "deployment", "d2", "app=x", "--overwrite")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/d2 labeled\n")
    r = embedded.run("annotate", "deployment/d2", "deployment/d3", "note=hi")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/d2 annotated\ndeployment.apps/d3 annotated\n")
    r = embedded.run("get", "deployment", "-l", "app=x", "-o", "jsonpath={.items[*].metadata.annotations.note}")
    assert r.stdout == "hi"
    r = embedded.run("scale", "deployment", "d2", "d3", "--replicas=4")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/d2 scaled\ndeployment.apps/d3 scaled\n")
    r = embedded.run("get", "deployment", "-o", "jsonpath={.items[*].spec.replicas}")
    assert r.stdout == "4 4"
