"""`kubectl kustomize -o PATH` and `--enable-helm` (with the --helm-* flags), against kubectl.

-o writes the stream to a file, or into an existing directory one file per object; both trees
are compared file by file. With helmCharts (or a HelmChartInflationGenerator) and --enable-helm
kubectl runs `helm version -c --short` first: the fake helms here (none, missing, failing with
and without stderr, killed, Helm 2, not executable) fail there, and the messages must match
(the temporary helm home's random number masked)."""
from __future__ import annotations

import io
import os
import re
import stat
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

from .differential import write_tree

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")]

RESOURCES = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: Web, namespace: a}
spec: {replicas: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: b}
---
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cr}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {k: v}
---
apiVersion: example.com/v1
kind: Foo
metadata: {name: f}
"""
ONE_NAMESPACE = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: x}\n---\n" \
                "apiVersion: v1\nkind: Secret\nmetadata: {name: s1, namespace: x}\n---\n" \
                "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: p\n"
CHART = "helmCharts:\n- name: minecraft\n  repo: https://charts.example.com\n  version: 3.1.3\n  releaseName: moria\n"
GENERATOR = "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: x}\nname: chart\nrepo: https://e.com\n"
FAKE_HELMS = {
    "helm2": '#!/bin/sh\necho "v2.16.1+gbbdfe5e"\n',
    "noversion": '#!/bin/sh\necho "unknown"\n',
    "stderr": '#!/bin/sh\necho "helm broke" >&2\nexit 3\n',
    "quiet": "#!/bin/sh\nexit 1\n",
    "killed": "#!/bin/sh\nkill -9 $$\n",
}

TREES = {
    "app/kustomization.yaml": "resources:\n- r.yaml\n",
    "app/r.yaml": RESOURCES,
    "one/kustomization.yaml": "resources:\n- r.yaml\nconfigMapGenerator:\n- name: gen\n  namespace: x\n  literals: [a=b]\n",
    "one/r.yaml": ONE_NAMESPACE,
    "chart/kustomization.yaml": CHART,
    "chart-gen/kustomization.yaml": "generators:\n- gen.yaml\n",
    "chart-gen/gen.yaml": GENERATOR,
    "chart-cm/kustomization.yaml": "configMapGenerator:\n- name: g\n  files: [missing.txt]\n" + CHART,
    "bin/noexec": "not a program\n",
    **{f"bin/{name}": text for name, text in FAKE_HELMS.items()},
}

OUTPUT_CASES = [
    ["app", "-o", "out.yaml"],
    ["app", "--output=out.yaml"],
    ["app", "-o", "dir"],
    ["one", "-o", "dir"],
    ["one", "-o=dir", "--reorder=none"],
    ["app", "-o", "missing/x.yaml"],
    ["app", "-o", "missing/"],
    ["app", "-o", ""],
    ["app", "-o", "exists.yaml"],
    ["broken", "-o", "out.yaml"],
    # kustomize build's Validate, and --reorder's deprecation notice (each time it is set)
    ["app", "one"],
    ["app", "--reorder=bad", "--load-restrictor=bad"],
    ["app", "--reorder=", "--reorder", "none"],
    ["app", "--reorder=legacy", "-o", "out.yaml"],
    ["app", "--load-restrictor="],
    ["app", "--load-restrictor", "LoadRestrictionsNone", "-o", "dir"],
]
HELM_CASES = [
    ["chart"],
    ["chart", "--enable-helm=false"],
    ["chart", "--enable-helm"],
    ["chart", "--enable-helm=true", "--helm-command=/nonexistent/helm"],
    ["chart", "--enable-helm", "--helm-command", "no-such-helm-anywhere"],
    ["chart", "--enable-helm=maybe"],
    ["chart-gen"],
    ["chart-gen", "--enable-helm", "--helm-api-versions=a/v1,b/v1", "--helm-kube-version=1.30", "--helm-debug"],
    ["chart-cm", "--enable-helm"],
    ["app", "--enable-helm", "--helm-command=bin/helm2"],  # no chart: helm is never run
    *([["chart", "--enable-helm", f"--helm-command=bin/{name}"] for name in [*FAKE_HELMS, "noexec"]]),
    ["chart-gen", "--enable-helm", "--helm-command=bin/stderr"],
]

_HEADER = re.compile(r"^E\d{4} [\d:.]+ +\d+ run\.go:72\] ", re.M)


def _setup(root) -> None:
    write_tree(str(root), TREES)
    (root / "dir").mkdir()
    (root / "dir" / "stale.yaml").write_text("kept\n")
    (root / "exists.yaml").write_text("x" * 5000)
    (root / "broken").mkdir()
    (root / "broken" / "kustomization.yaml").write_text("resources: [nope.yaml]\n")
    for name in (*FAKE_HELMS, "noexec"):
        path = root / "bin" / name
        path.chmod(0o644 if name == "noexec" else 0o755)


def _normalize(text: str, tool: str) -> str:
    text = _HEADER.sub("E HEADER ", text.replace(tool, "TOOL"))
    return re.sub(r"kustomize-helm-\d+", "kustomize-helm-N", text)


def _snapshot(root) -> dict:
    return {str(p.relative_to(root)): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(root.rglob("*")) if p.is_file()}


def _kubectl(root, argv):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "KUBECONFIG": "/dev/null"}
    p = subprocess.run([KUBECTL, "kustomize", *argv], cwd=root, capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, p.stdout, _normalize(p.stderr, "kubectl")


def _kubelite(root, argv, monkeypatch):
    from kubelite.cli.main import main

    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["kustomize", *argv])
    return rc, out.getvalue(), _normalize(err.getvalue(), "kubelite")


@pytest.mark.parametrize("argv", OUTPUT_CASES + HELM_CASES, ids=" ".join)
def test_kustomize_output_and_helm_flags_match_kubectl(argv, tmp_path, monkeypatch):
    outcomes = {}
    for tool in ("kubectl", "kubelite"):
        root = tmp_path / tool
        root.mkdir()
        _setup(root)
        result = _kubectl(root, argv) if tool == "kubectl" else _kubelite(root, argv, monkeypatch)
        outcomes[tool] = (result, _snapshot(root))
    assert outcomes["kubelite"][0] == outcomes["kubectl"][0]
    assert outcomes["kubelite"][1] == outcomes["kubectl"][1]


def test_helm_home_is_removed(tmp_path, monkeypatch):
    """The temporary helm configuration home kustomize makes does not outlive the build."""
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    tempfile.tempdir = None
    try:
        root = tmp_path / "tree"
        root.mkdir()
        _setup(root)
        rc, _, err = _kubelite(root, ["chart", "--enable-helm", "--helm-command=bin/helm2"], monkeypatch)
    finally:
        tempfile.tempdir = None
    assert rc == 1 and "requires helm V3" in err
    assert list((tmp_path / "tmp").iterdir()) == []
