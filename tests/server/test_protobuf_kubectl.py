"""Real kubectl commands that send protobuf bodies, against `kubelite serve`.

Each case of tests/data/protobuf/cases.json runs three ways: --dry-run=client -o json (the object
kubectl means to send), --dry-run=server -o json, and for real. The server's objects must hold
every field kubectl set, with kubectl's values (server defaulting may add more).
"""
from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess

import pytest

from test_serve_support import KUBECTL, kubectl_at, serving

DATA = pathlib.Path(__file__).parent.parent / "data" / "protobuf"
CASES = json.loads((DATA / "cases.json").read_text())
pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")]


def _capture_module():
    spec = importlib.util.spec_from_file_location("protobuf_capture", DATA / "capture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("protobuf-kubectl")
    files = _capture_module().fixture_files(base)
    with serving(base) as server:
        yield server, base, files


def _kubectl(cluster, *args: str) -> subprocess.CompletedProcess:
    server, base, _ = cluster
    return kubectl_at(server, base / "cache", *args)


def _holds(live, want, path="") -> list[str]:
    """Where `live` lacks or differs from what `want` sets (null in `want` sets nothing)."""
    if want is None:
        return []
    if isinstance(want, dict):
        if not isinstance(live, dict):
            return [f"{path}: {live!r} is not an object"]
        problems = []
        for key, value in want.items():
            if value is not None and key not in live:
                problems.append(f"{path}.{key}: missing")
            elif key in live:
                problems.extend(_holds(live[key], value, f"{path}.{key}"))
        return problems
    if isinstance(want, list):
        if not isinstance(live, list) or len(live) != len(want):
            return [f"{path}: {live!r} != {want!r}"]
        return [p for i, (a, b) in enumerate(zip(live, want)) for p in _holds(a, b, f"{path}[{i}]")]
    return [] if live == want else [f"{path}: {live!r} != {want!r}"]


def _resource_of(obj: dict) -> str:
    """kind.version.group, so the object is read back in the version kubectl sent."""
    group, _, version = obj["apiVersion"].rpartition("/")
    return obj["kind"].lower() + (f".{version}.{group}" if group else "")


@pytest.mark.parametrize("name,args", CASES, ids=[name for name, _ in CASES])
def test_protobuf_command_against_kubelite(cluster, name, args):
    args = _capture_module().expand(args, cluster[2])
    intended = _kubectl(cluster, "--dry-run=client", "-o", "json", *args)
    assert intended.returncode == 0, intended.stderr
    want = json.loads(intended.stdout)

    dry = _kubectl(cluster, "--dry-run=server", "-o", "json", *args)
    assert dry.returncode == 0, dry.stderr
    assert _holds(json.loads(dry.stdout), want) == []

    real = _kubectl(cluster, "-o", "json", *args)  # AlreadyExists if the dry run had stored it
    assert real.returncode == 0, real.stderr
    assert _holds(json.loads(real.stdout), want) == []
    if name == "autoscale":
        return  # reading an HPA back at v1 is test_hpa_v1_reads_back_as_v1 (needs version conversion)

    namespaced = ["-n", want["metadata"].get("namespace", "default")]
    live = _kubectl(cluster, "get", _resource_of(want), want["metadata"]["name"], "-o", "json", *namespaced)
    assert live.returncode == 0, live.stderr
    assert _holds(json.loads(live.stdout), want) == []


def test_hpa_v1_reads_back_as_v1(cluster):
    created = _kubectl(cluster, "create", "deployment", "pb-hpa-target", "--image=nginx")
    assert created.returncode == 0, created.stderr
    args = ["autoscale", "deployment", "pb-hpa-target", "--min=1", "--max=2", "--cpu-percent=60"]
    want = json.loads(_kubectl(cluster, "--dry-run=client", "-o", "json", *args).stdout)
    assert _kubectl(cluster, *args).returncode == 0
    live = _kubectl(cluster, "get", "horizontalpodautoscaler.v1.autoscaling", "pb-hpa-target", "-o", "json")
    assert _holds(json.loads(live.stdout), want) == []


def test_kubectl_sends_protobuf(cluster):
    """The premise: these commands do send protobuf (a JSON body would not exercise the decoder)."""
    run = _kubectl(cluster, "-v=8", "create", "configmap", "pb-premise", "--from-literal=a=b")
    assert run.returncode == 0, run.stderr
    assert "Content-Type: application/vnd.kubernetes.protobuf" in run.stderr
