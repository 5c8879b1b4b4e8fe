"""Differential: the patch kubelite plans equals, byte for byte, the one real kubectl sends.

For each case kubectl applies a first file, an imperative writer changes the live object,
then kubectl applies a second file with -v=9 (request bodies logged in full); kubelite plans
the same second apply from the live object read just before and must produce the same bytes.
"""
from __future__ import annotations

import copy
import json
import re

import pytest
import yaml

from apply_support import HAVE_KUBECTL
from kubelite.apply.lastapplied import LAST_APPLIED
from kubelite.apply.objects import settle_namespace
from kubelite.apply.plan import CREATE, UNCHANGED, plan_object
from kubelite.manifest import read_text

pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")]


def deployment(name, **spec):
    base = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2",
                                                           "ports": [{"containerPort": 80}]}]}}}}
    base["spec"].update(spec)
    return base


def with_containers(obj, containers):
    obj = copy.deepcopy(obj)
    obj["spec"]["template"]["spec"]["containers"] = containers
    return obj


HELPERS_LAST = [{"name": "nginx", "image": "nginx:1.16"}, {"name": "nginx-helper-a", "image": "helper:1.3"},
                {"name": "nginx-helper-b", "image": "helper:1.3"}]
HELPERS_FILE = [{"name": "nginx", "image": "nginx:1.16"}, {"name": "nginx-helper-b", "image": "helper:1.3"},
                {"name": "nginx-helper-c", "image": "helper:1.3"}]
HELPERS_LIVE_PATCH = ('{"spec":{"template":{"spec":{"containers":[{"name":"nginx-helper-b","args":["run"]},'
                      '{"name":"nginx-helper-d","image":"helper:1.3"}]}}}}')

# (name, first file, imperative kubectl args or None, second file)
CASES = [
    ("seed000-update", deployment("d1", minReadySeconds=5), ["scale", "deployment/d1", "--replicas=2"],
     deployment("d1")),
    ("seed000-containers", with_containers(deployment("d2"), HELPERS_LAST),
     ["patch", "deployment/d2", "-p", HELPERS_LIVE_PATCH], with_containers(deployment("d2"), HELPERS_FILE)),
    ("seed000-recreate", deployment("d3"), None, deployment("d3", strategy={"type": "Recreate"})),
    ("null-clears", deployment("d4", minReadySeconds=5), ["scale", "deployment/d4", "--replicas=3"],
     deployment("d4", replicas=None)),
    ("labels-and-args", deployment("d5"), ["label", "deployment/d5", "owner=me"],
     with_containers(deployment("d5"), [{"name": "nginx", "image": "nginx:1.14.2", "args": ["a", "c"]}])),
    ("configmap", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1", "labels": {"a": "1"}},
                   "data": {"x": "1", "y": "2"}}, ["label", "configmap/c1", "b=2"],
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"x": "3", "z": "<&>"}}),
    ("service-ports", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s1"},
                       "spec": {"selector": {"app": "x"}, "ports": [{"port": 80, "name": "http"}]}}, None,
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s1", "annotations": {"a": "b"}},
      # not `y`: kubectl reads it as true, which kube-apiserver refuses in a map[string]string
      # ("unrecognized type: string", the strategic patch converter's error)
      "spec": {"selector": {"app": "z"}, "ports": [{"port": 443, "name": "https"}]}}),
]

BODY = re.compile(r'"Request Body" body="(.*)"\s*$')


def patch_bodies(stderr: str) -> list[str]:
    """PATCH request bodies in kubectl -v=9 output, in order."""
    lines = stderr.splitlines()
    bodies = []
    for i, line in enumerate(lines):
        if "PATCH https://" in line or ('curl -v -XPATCH' in line):
            # the body is logged just before the request line
            for j in range(i - 1, max(i - 6, -1), -1):
                m = BODY.search(lines[j])
                if m:
                    bodies.append(json.loads('"' + m.group(1) + '"'))
                    break
    return list(dict.fromkeys(bodies))


@pytest.mark.parametrize("name,first,imperative,second", CASES, ids=[c[0] for c in CASES])
def test_patch_is_byte_identical_to_kubectls(served, tmp_path, name, first, imperative, second):
    (tmp_path / "first.yaml").write_text(yaml.safe_dump(first))
    (tmp_path / "second.yaml").write_text(yaml.safe_dump(second))
    created = served.kubectl("apply", "-f", str(tmp_path / "first.yaml"))
    assert created.returncode == 0, created.stderr
    if imperative:
        changed = served.kubectl(*imperative)
        assert changed.returncode == 0, changed.stderr
    kind = second["kind"].lower()
    live = json.loads(served.kubectl("get", f"{kind}/{second['metadata']['name']}", "-o", "json").stdout)

    # read as kubectl reads the file (go-yaml v2: `y` is a boolean)
    config = settle_namespace(read_text((tmp_path / "second.yaml").read_text(), "second.yaml")[0].obj, True,
                              "default", False)
    ours = plan_object(config, live)

    applied = served.kubectl("apply", "-f", str(tmp_path / "second.yaml"), "-v=9")
    assert applied.returncode == 0, applied.stderr[-2000:]
    sent = patch_bodies(applied.stderr)
    if ours.verb == UNCHANGED:
        assert sent == []
        return
    assert len(sent) == 1, applied.stderr[-3000:]
    assert ours.patch.text() == sent[0]
    after = json.loads(served.kubectl("get", f"{kind}/{second['metadata']['name']}", "-o", "json").stdout)
    assert after["metadata"]["annotations"][LAST_APPLIED] == ours.annotation


def test_annotation_written_on_create_is_kubectls(served, tmp_path):
    obj = deployment("fresh", minReadySeconds=5)
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(obj))
    assert served.kubectl("apply", "-f", str(tmp_path / "f.yaml")).returncode == 0
    live = json.loads(served.kubectl("get", "deployment/fresh", "-o", "json").stdout)
    action = plan_object(settle_namespace(obj, True, "default", False), None)
    assert action.verb == CREATE
    assert live["metadata"]["annotations"][LAST_APPLIED] == action.annotation
