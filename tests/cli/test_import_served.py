"""Import hygiene against `kubelite serve`: reading and writing over HTTPS loads neither httpx nor the
server (kubelite.client.http1 does the talking; an exec credential plugin is the one case that
still needs httpx), and a `get` no PyYAML. No timing asserts: bench/cli.py measures the speed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from test_import_hygiene import PROBE, loaded  # the same probe: main() in a fresh interpreter

FORBIDDEN = ("httpx", "httpcore", "anyio", "asyncio", "uvicorn", "sqlite3", "kubelite.server.core",
             "kubelite.server.app", "kubelite.server.cluster", "kubelite.server.controllers")


def probe(served, tmp_path, *argv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kubelite"))
    r = subprocess.run([sys.executable, "-c", PROBE, "--kubeconfig", str(served.kubeconfig), *argv],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def test_get_namespaces_over_https_without_httpx(served, tmp_path):
    result = probe(served, tmp_path, "get", "ns")
    assert result["code"] == 0 and "kube-system" in result["stdout"]
    assert "kubelite.client.http1" in result["modules"]
    # nor PyYAML (the kubeconfig `kubelite serve` wrote is read by kubelite.client.kubeconfig_yaml),
    # nor typing (annotations only)
    assert loaded(result["modules"], FORBIDDEN + ("yaml", "typing")) == []
    # nor what only -h, another command or a file-backed client key pair needs (help texts,
    # tempfile with shutil), nor the idna codec for an ASCII host name
    assert loaded(result["modules"], ("kubelite.cli.help_texts", "tempfile", "shutil", "encodings.idna")) == []
    # nor dataclasses with inspect (the discovery registry's records are kubelite.record's)
    assert loaded(result["modules"], ("dataclasses", "inspect")) == []
    # nor ssl and socket: kubelite.client.tls talks TLS on _ssl and _socket
    assert loaded(result["modules"], ("ssl", "socket")) == [] and "kubelite.client.tls" in result["modules"]


def test_apply_and_get_yaml_over_https_without_httpx(served, tmp_path):
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: import-probe\ndata:\n  a: b\n")
    applied = probe(served, tmp_path, "apply", "-f", str(manifest))
    assert applied["code"] == 0 and applied["stdout"] == "configmap/import-probe created\n"
    shown = probe(served, tmp_path, "get", "configmap", "import-probe", "-o", "json")
    assert json.loads(shown["stdout"])["data"] == {"a": "b"}
    as_yaml = probe(served, tmp_path, "get", "configmap", "import-probe", "-o", "yaml")
    assert "  a: b\n" in as_yaml["stdout"] and loaded(as_yaml["modules"], ("typing", "kubelite.cli.help_texts")) == []
    assert loaded(applied["modules"], FORBIDDEN) == [] and loaded(shown["modules"], FORBIDDEN) == []
