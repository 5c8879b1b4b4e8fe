"""Replaying the garbage-collector / namespace / endpoints / service-account recordings: a
cluster on a fake clock with every controller plus a recorder, the manifests a case fed to
kubectl on stdin, and the shape of an object's transitions (what must match the stream)."""
from __future__ import annotations

import re

import pytest
import yaml

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers import default_controllers

from test_workloads_support import DATA, Recorder, collapse, stream

MERGE = {"content-type": "application/merge-patch+json"}


@pytest.fixture
def recorded_cluster():
    with Cluster("memory://", clock=FakeClock(), controllers=[*default_controllers(), Recorder]) as c:
        c.settle()
        yield c


def recorder(cluster) -> Recorder:
    return next(c for c in cluster.manager.controllers if isinstance(c, Recorder))


def stdin_documents(case: str) -> list[dict]:
    """The objects the case created with `kubectl create -f -`, in order."""
    text = (DATA / case / "commands.txt").read_text()
    return [yaml.safe_load(block) for block in re.findall(r"--- stdin\n(.*?)--- exit code", text, re.S)]


def shape(obj: dict, event_type: str) -> tuple:
    meta = obj.get("metadata") or {}
    return (event_type, tuple(meta.get("finalizers") or ()), bool(meta.get("deletionTimestamp")),
            bool(meta.get("ownerReferences")), meta.get("generation"))


def _per_object(events) -> list[tuple]:
    """(resource, [event type, object]) pairs -> each object's collapsed transitions, sorted."""
    by_uid: dict[str, list] = {}
    for event_type, obj in events:
        by_uid.setdefault(obj["metadata"].get("uid"), []).append(shape(obj, event_type))
    return sorted(tuple(collapse(shapes)) for shapes in by_uid.values())


def recorded_transitions(case: str, resource: str, after: float = 0.0, name: str | None = None) -> list[tuple]:
    """Each object's collapsed transitions in a recording (from time `after` on)."""
    return _per_object((e["type"], e["object"]) for e in stream(case)
                       if e["resource"] == resource and e["t"] >= after
                       and name in (None, e["object"]["metadata"]["name"]))


def seen_transitions(cluster, rid: str, since: int = 0, name: str | None = None) -> list[tuple]:
    """Each object's collapsed transitions as the recorder saw them (from event `since` on)."""
    return _per_object((kind, obj) for r, kind, obj in recorder(cluster).seen[since:]
                       if r == rid and name in (None, obj["metadata"]["name"]))


def create_namespace(api, name: str) -> None:
    assert api.post("/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
