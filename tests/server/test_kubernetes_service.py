"""The `kubernetes` Service a cluster's apiserver keeps in `default` (first address of the service
range, 443 -> the secure port), with its Endpoints, made at bootstrap and shown by get."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_serve_support import Served

KUBECTL = "/usr/bin/kubectl"


def _kubelite(tmp_path, *args):
    env = dict(os.environ, HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kl"))
    env.pop("KUBECONFIG", None)
    return subprocess.run([sys.executable, "-m", "kubelite", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def test_embedded_cluster_has_the_kubernetes_service(tmp_path):
    svc = json.loads(_kubelite(tmp_path, "get", "svc", "kubernetes", "-o", "json").stdout)
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    assert svc["spec"]["clusterIP"] == "10.0.0.1" and svc["spec"]["clusterIPs"] == ["10.0.0.1"]
    assert svc["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]
    assert (svc["spec"]["type"], svc["spec"]["sessionAffinity"]) == ("ClusterIP", "None")
    ep = json.loads(_kubelite(tmp_path, "get", "endpoints", "kubernetes", "-o", "json").stdout)
    assert ep["subsets"][0]["ports"] == [{"name": "https", "port": 6443, "protocol": "TCP"}]
    table = _kubelite(tmp_path, "get", "svc").stdout.splitlines()
    assert table[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    assert table[1].split()[:5] == ["kubernetes", "ClusterIP", "10.0.0.1", "<none>", "443/TCP"]
    # a second start keeps the one Service (same uid)
    again = json.loads(_kubelite(tmp_path, "get", "svc", "kubernetes", "-o", "json").stdout)
    assert again["metadata"]["uid"] == svc["metadata"]["uid"]


@pytest.mark.kubectl
@pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")
def test_kubectl_sees_it(tmp_path):
    server = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
    try:
        proc = subprocess.run([KUBECTL, "--kubeconfig", str(server.kubeconfig), "get", "svc", "-o", "wide"],
                              capture_output=True, text=True, timeout=60)
    finally:
        server.stop()
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    assert rows[0] == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    assert len(rows) == 2 and rows[1][:5] == ["kubernetes", "ClusterIP", "10.0.0.1", "<none>", "443/TCP"]
    assert rows[1][-1] == "<none>"
