"""Helpers of the scheduler / node / kubelet tests: reference data and status normalisation."""
from __future__ import annotations

import json
import pathlib
import re

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "controllers"

_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
_POD_IP = re.compile(r"^10\.244\.\d+\.\d+$")


def reference_pods(case: str) -> list[dict]:
    for folder in (DATA / "scheduling" / case, DATA / case):
        path = folder / "final" / "pods.json"
        if path.exists():
            return json.loads(path.read_text())["items"]
    raise FileNotFoundError(case)


def reference_stream(case: str) -> list[dict]:
    path = DATA / "scheduling" / case / "stream.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def normalise(value, key: str = ""):
    """Times, IPs, ids and hashes replaced by placeholders, so two runs' statuses compare."""
    if isinstance(value, dict):
        return {k: normalise(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, key) for v in value]
    if isinstance(value, str):
        if _TIME.match(value):
            return "<time>"
        if key in ("podIP", "ip") and _POD_IP.match(value):
            return "<pod-ip>"
        if key == "containerID":
            return "containerd://<id>" if value.startswith("containerd://") else value
        if key == "imageID":
            return re.sub(r"@sha256:[0-9a-f]{64}$", "@sha256:<digest>", value)
    return value


def pod(name: str, image: str = "nginx:1.24", **spec) -> dict:
    containers = spec.pop("containers", None) or [{"name": "c", "image": image}]
    meta = spec.pop("metadata", {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"containers": containers, **spec}}


def events_for(api, namespace: str, name: str) -> list[dict]:
    items = api.get(f"/api/v1/namespaces/{namespace}/events").json()["items"]
    return [e for e in items if (e.get("involvedObject") or {}).get("name") == name]
