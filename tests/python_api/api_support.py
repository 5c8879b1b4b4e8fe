"""Helpers for the Python API tests: real kubectl against a served kubelite.Cluster, and
comparing live objects without what differs between any two clusters (uids, times, versions)."""
from __future__ import annotations

import copy
import pathlib
import shutil
import subprocess

import pytest

KUBECTL = "/usr/bin/kubectl"
ROOT = pathlib.Path(__file__).resolve().parents[2]
needs_kubectl = pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")


def kubectl(kubeconfig: str, *args: str, stdin: str | None = None, cache: pathlib.Path | None = None):
    extra = ["--cache-dir", str(cache)] if cache else []
    return subprocess.run([KUBECTL, "--kubeconfig", kubeconfig, *extra, *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def comparable(obj: dict) -> dict:
    """The object without identity, versions, times, status and allocated IPs (which differ between
    clusters)."""
    obj = copy.deepcopy(obj)
    obj.pop("status", None)
    metadata = obj.get("metadata") or {}
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation"):
        metadata.pop(key, None)
    for entry in metadata.get("managedFields") or ():
        entry.pop("time", None)
    if obj.get("kind") == "Service":  # allocated at random from the service range
        for key in ("clusterIP", "clusterIPs"):
            (obj.get("spec") or {}).pop(key, None)
    return obj
