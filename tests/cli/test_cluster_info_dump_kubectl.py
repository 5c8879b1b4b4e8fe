"""`kubelite cluster-info dump` against kubectl cluster-info dump, both reading one `kubelite serve`.

The same objects are read by both, so the output must be the same text: on stdout, and as a
directory tree (file names, contents and modes) with --output-directory.
"""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.kubectl

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: with-init, namespace: other, labels: {app: x}}
spec:
  initContainers: [{name: setup, image: busybox}]
  containers: [{name: main, image: busybox}, {name: side, image: nginx}]
"""

STDOUT_CASES = [
    "cluster-info dump",
    "cluster-info dump -A",
    "cluster-info dump --namespaces other,default -o yaml",
    "cluster-info dump --namespaces=other --namespaces=default -o jsonpath={.kind}",
    "cluster-info dump -n other",
    "cluster-info dump -o name",
    "cluster-info dump -o wide",
    "cluster-info dump --output-directory=-",
]

_RESOURCE_VERSION = re.compile(r'("resourceVersion": "|resourceVersion: ")\d+"')


def _masked(text: str) -> str:
    return _RESOURCE_VERSION.sub(r'\1N"', text)


@pytest.fixture(scope="module")
def objects(served, tmp_path_factory):
    import subprocess
    import sys

    manifest = tmp_path_factory.mktemp("dump") / "pod.yaml"
    manifest.write_text(POD)
    base = [sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig)]
    for step in (["create", "ns", "other"], ["create", "-f", str(manifest)],
                 ["create", "deployment", "web", "--image=nginx"], ["create", "service", "clusterip", "web",
                                                                    "--tcp=80:8080"],
                 ["create", "cm", "not-dumped", "--from-literal=a=b", "-n", "other"]):
        subprocess.run(base + step, check=True, capture_output=True, timeout=60)
    return served


@pytest.mark.parametrize("case", STDOUT_CASES)
def test_dump_to_stdout_matches_kubectl(case, objects, kubectl, remote):
    words = case.split()
    theirs, ours = kubectl.run(*words), remote.run(*words)
    assert (ours.returncode, _masked(ours.stdout), ours.stderr.replace("kubelite", "kubectl")) == \
        (theirs.returncode, _masked(theirs.stdout), theirs.stderr)


def _tree(root):
    return {str(p.relative_to(root)): (oct(p.stat().st_mode & 0o777),
                                       _masked(p.read_text()) if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("extra", [[], ["-o", "yaml", "-A"], ["--namespaces", "other", "-o", "jsonpath={.kind}"]])
def test_dump_to_directory_matches_kubectl(extra, objects, kubectl, remote, tmp_path):
    trees = {}
    for tool, cli in (("kubectl", kubectl), ("kubelite", remote)):
        target = tmp_path / tool
        result = cli.run("cluster-info", "dump", f"--output-directory={target}", *extra)
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout == f"Cluster info dumped to {target}\n"
        trees[tool] = _tree(target)
    assert trees["kubelite"] == trees["kubectl"]
    if extra:  # these dump the namespace "other", with the pod: init container first, then the others
        logs = trees["kubectl"]["other/with-init/logs.txt"][1]
        assert [line.split()[5] for line in logs.splitlines() if line.startswith("==== START")] == \
            ["setup", "main", "side"]
