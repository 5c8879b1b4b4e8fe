"""`apply -f` and `delete -f` against a server write several objects at a time (kubectl writes one
at a time): what the user sees — each object's line, each warning, in the order of the files — is
what kubectl prints, and an object that others are admitted against (a LimitRange) is in place
before they are written.

Outputs are compared with real kubectl 1.32 driving the same `kubelite serve`."""
from __future__ import annotations

import json
import pathlib
import threading

import pytest
import yaml

from apply_support import HAVE_KUBECTL

pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")]


def _objects() -> list[dict]:
    out = []
    for i in range(24):
        kind = i % 3
        if kind == 0:
            out.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"v": "1"}})
        elif kind == 1:
            out.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"s-{i}"}, "stringData": {"v": "1"}})
        else:
            out.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"svc-{i}"},
                        "spec": {"selector": {"app": f"a{i}"}, "ports": [{"port": 80}]}})
    return out


def _write(directory: pathlib.Path, objs: list[dict], per_file: int = 10) -> str:
    directory.mkdir()
    for start in range(0, len(objs), per_file):
        (directory / f"part-{start // per_file}.yaml").write_text(
            "---\n".join(yaml.safe_dump(o) for o in objs[start:start + per_file]))
    return str(directory)


def _both(served, *args: str) -> tuple:
    """(kubectl's, kubelite's) completed runs of the same command, each in a namespace of its own."""
    theirs = served.kubectl(*args, "-n", "theirs")
    ours = served.kubelite(*args, "-n", "ours")
    return theirs, ours


def _same(theirs, ours) -> None:
    # (kubelite's warnings name the command the user ran: `kubelite apply`)
    assert (ours.returncode, ours.stdout, ours.stderr.replace("kubelite ", "kubectl ")) == \
        (theirs.returncode, theirs.stdout, theirs.stderr)


def test_apply_and_delete_print_each_object_and_warning_in_file_order(served, tmp_path):
    for ns in ("theirs", "ours"):
        assert served.kubelite("create", "namespace", ns).returncode == 0
    objs = _objects()
    # half of them made without the last-applied annotation: apply warns for each of those
    made = _write(tmp_path / "made", objs[::2])
    for theirs_or_ours in _both(served, "create", "-f", made):
        assert theirs_or_ours.returncode == 0, theirs_or_ours.stderr
    directory = _write(tmp_path / "all", objs)
    theirs, ours = _both(served, "apply", "-f", directory)
    _same(theirs, ours)
    assert ours.stderr.count("Warning: resource") == 12 and len(ours.stdout.splitlines()) == 24
    theirs, ours = _both(served, "apply", "-f", directory)
    _same(theirs, ours)
    theirs, ours = _both(served, "delete", "-f", directory)
    _same(theirs, ours)
    assert len(ours.stdout.splitlines()) == 24
    listed = served.kubelite("get", "configmaps,secrets,services", "-n", "ours", "-o", "name")
    assert "cm-" not in listed.stdout and "svc-" not in listed.stdout


def test_a_limitrange_is_in_place_before_the_pods_after_it(served, tmp_path):
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "limited"}}
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "limited"},
              "spec": {"limits": [{"type": "Container", "default": {"cpu": "250m"}}]}}
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i}", "namespace": "limited"},
             "spec": {"containers": [{"name": "c", "image": "nginx"}]}} for i in range(12)]
    ours = served.kubelite("apply", "-f", _write(tmp_path / "limited", [namespace, limits, *pods]))
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.splitlines() == (["namespace/limited created", "limitrange/limits created"] +
                                        [f"pod/p-{i} created" for i in range(12)])
    listed = json.loads(served.kubelite("get", "pods", "-n", "limited", "-o", "json").stdout)["items"]
    assert {p["metadata"]["name"]: p["spec"]["containers"][0]["resources"]["limits"]["cpu"] for p in listed} == \
        {f"p-{i}": "250m" for i in range(12)}


class _Watching:
    """Wraps a dynamic client: creates of Pods p-0 and p-1 each wait for the other (they can only
    both finish side by side), and a LimitRange's create stays in flight a moment, noting any
    create that starts meanwhile."""

    def __init__(self, client):
        self.client, self.lock, self.in_flight, self.overlaps = client, threading.Lock(), set(), []
        self.pair = threading.Barrier(2, timeout=30)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def create(self, r, namespace, body, params=None):
        kind, name = body["kind"], body["metadata"]["name"]
        with self.lock:
            if any(k == "LimitRange" for k, _ in self.in_flight) or (kind == "LimitRange" and self.in_flight):
                self.overlaps.append(name)
            self.in_flight.add((kind, name))
        try:
            if name in ("p-0", "p-1"):
                self.pair.wait()
            if kind == "LimitRange":
                # in flight a moment: only widens the window a wrongly sent pod would show in
                threading.Event().wait(0.2)
            return self.client.create(r, namespace, body, params)
        finally:
            with self.lock:
                self.in_flight.discard((kind, name))


def test_pods_are_written_side_by_side_but_never_beside_a_limitrange(served, tmp_path):
    from kubelite.apply.engine import Applier, ApplyOptions
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides
    from kubelite.manifest import Manifest

    assert served.kubelite("create", "namespace", "watched").returncode == 0
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i}"},
             "spec": {"containers": [{"name": "c", "image": "nginx"}]}} for i in range(8)]
    limits = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
              "spec": {"limits": [{"type": "Container", "default": {"cpu": "100m"}}]}}
    objs = pods[:4] + [limits] + pods[4:]
    with Session.open(Overrides(kubeconfig=str(served.kubeconfig))) as session:
        watching = session._client = _Watching(session.client)
        applier = Applier(session, ApplyOptions(namespace="watched"))
        result = applier.run(applier.prepare([Manifest(o, "f.yaml", i, 1) for i, o in enumerate(objs)]))
    assert not result.errors, result.errors
    assert [(o.verb, o.obj["metadata"]["name"]) for o in result.outcomes] == \
        [("created", o["metadata"]["name"]) for o in objs]
    assert watching.overlaps == []
    # the pods after the LimitRange were admitted against it, those before were not
    cpu = {o.obj["metadata"]["name"]: (o.obj["spec"]["containers"][0].get("resources") or {}).get("limits")
           for o in result.outcomes if o.obj["kind"] == "Pod"}
    assert cpu == {**{f"p-{i}": None for i in range(4)}, **{f"p-{i}": {"cpu": "100m"} for i in range(4, 8)}}
