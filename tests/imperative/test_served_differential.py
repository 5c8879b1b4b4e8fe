"""Generators that need a server even for --dry-run=client (kubectl maps resources first):
`create role|clusterrole --resource` and `run`, real kubectl and kubelite both against `kubelite serve`."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from imperative_support import KUBECTL, kubelite, needs_kubectl, normalize

sys.path.insert(0, str(Path(__file__).parents[1] / "server"))
from test_serve_support import Served  # noqa: E402

pytestmark = [pytest.mark.kubectl, needs_kubectl]

CASES = [
    ["create", "role", "r", "--verb=get,list", "--resource=pods,deployments.apps,pods/status", "-o", "json"],
    ["create", "role", "r", "--verb=get", "--verb=get", "--resource=deploy", "--resource-name=a", "-o", "yaml"],
    ["create", "role", "r", "--verb=*", "--resource=*", "-o", "yaml", "-n", "team"],
    ["create", "role", "r", "--verb=get", "--resource=foo", "-o", "yaml"],
    ["create", "role", "r", "--verb=use", "--resource=pods", "-o", "yaml"],
    ["create", "role", "r", "--verb=bind", "--resource=roles.rbac.authorization.k8s.io", "-o", "json"],
    ["create", "role", "r", "--verb=get", "-o", "yaml"],
    ["create", "role", "r", "--verb=frob", "--resource=pods", "-o", "yaml"],
    ["create", "clusterrole", "c", "--verb=get", "--resource=nodes,services", "--non-resource-url=/logs/*",
     "-o", "json"],
    ["run", "p", "--image=nginx", "-o", "json"],
    ["run", "p", "--image=nginx", "--port=80", "--env=A=b", "--labels=x=y,z=w", "--restart=Never",
     "--image-pull-policy=Always", "-o", "json", "--command", "--", "sh", "-c", "date"],
    ["run", "p", "--image=busybox", "-o", "yaml", "-n", "team", "--", "sleep", "10"],
    ["run", "p", "--image=nginx", "--overrides={\"spec\":{\"hostNetwork\":true}}", "-o", "yaml"],
    ["run", "p", "--image=Bad Image", "-o", "yaml"],
    ["run", "p", "--image=nginx", "--env=1BAD=x", "-o", "yaml"],
    ["run", "p", "--image=nginx", "--annotations=a=b", "--privileged", "-o", "json"],
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    server = Served(tmp / "data", tmp / "kubeconfig").start()
    try:
        yield server
    finally:
        server.stop()


def test_server_mapped_generators_match_kubectl(served, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kl"))
    monkeypatch.setenv("KUBECONFIG", str(served.kubeconfig))
    env = {**os.environ, "KUBECONFIG": str(served.kubeconfig), "HOME": str(tmp_path)}
    mismatches = []
    for case in CASES:
        argv = case[:case.index("--")] + ["--dry-run=client"] + case[case.index("--"):] if "--" in case \
            else case + ["--dry-run=client"]
        p = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
        expected = (p.returncode, p.stdout, normalize(p.stderr))
        got = kubelite(argv)
        if got != expected:
            mismatches.append((argv, expected, got))
    for m in mismatches:
        print("MISMATCH", m)
    assert not mismatches, f"{len(mismatches)}/{len(CASES)}"
