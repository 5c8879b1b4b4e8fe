"""Differential test: seeded random Deployments, Pods and Services patched with random strategic
merge patches (directives included), compared with `kubectl patch --local --type strategic`.

Each batch is one patch applied by kubectl to several variants of one object (a multi-document
file), so 50 cases cost about 10 kubectl runs.
"""
from __future__ import annotations

import copy
import json
import os
import pathlib
import random
import subprocess

import pytest

from kubelite.patch import PatchError
from kubelite.patch.kubectl import patch_local
from kubelite.patch.strategic import to_json

try:  # kubectl's YAML rules live in the manifest layer, above patch/; the CLI passes them in
    from kubelite.manifest._goyaml import decode_yaml as go_yaml
except ImportError:  # pragma: no cover
    go_yaml = None

KUBECTL = "/usr/bin/kubectl"
BATCHES = 10
VARIANTS = 5

pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not os.path.exists(KUBECTL), reason="needs /usr/bin/kubectl"),
]

NAMES = ["app", "sidecar", "proxy", "log", "init", "metrics", "db"]
ENV = ["MODE", "LOG_LEVEL", "PORT", "DEBUG", "TZ", "REGION"]
FINALIZERS = ["example.com/a", "example.com/b", "example.com/c", "example.com/d"]


# -- random objects --------------------------------------------------------------------------


def _container(rng: random.Random, name: str, port_base: int) -> dict:
    c: dict = {"name": name, "image": f"{name}:{rng.randint(1, 9)}.{rng.randint(0, 20)}"}
    if rng.random() < 0.8:
        c["ports"] = [{"containerPort": port_base + i, "name": f"p{i}", "protocol": "TCP"}
                      for i in range(rng.randint(1, 3))]
    if rng.random() < 0.8:
        c["env"] = [{"name": n, "value": str(rng.randint(0, 99))} for n in rng.sample(ENV, rng.randint(1, 4))]
    if rng.random() < 0.5:
        c["args"] = [f"--flag{i}" for i in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        c["volumeMounts"] = [{"name": "data", "mountPath": "/data"}, {"name": "cfg", "mountPath": "/etc/cfg"}]
    if rng.random() < 0.5:
        c["resources"] = {"limits": {"cpu": "500m"}, "requests": {"cpu": "100m", "memory": "64Mi"}}
    return c


def _pod_spec(rng: random.Random) -> dict:
    names = rng.sample(NAMES, rng.randint(1, 4))
    spec: dict = {"containers": [_container(rng, n, 8000 + 100 * i) for i, n in enumerate(names)]}
    if rng.random() < 0.7:
        spec["volumes"] = [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "cfg"}}]
    if rng.random() < 0.5:
        spec["tolerations"] = [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]
    if rng.random() < 0.5:
        spec["imagePullSecrets"] = [{"name": "reg1"}, {"name": "reg2"}]
    return spec


def _metadata(rng: random.Random, name: str) -> dict:
    meta: dict = {"name": name, "labels": {"app": name, "tier": rng.choice(["web", "db"])}}
    if rng.random() < 0.6:
        meta["finalizers"] = rng.sample(FINALIZERS, rng.randint(1, 3))
    if rng.random() < 0.5:
        meta["annotations"] = {"example.com/x": "1"}
    return meta


def random_object(rng: random.Random) -> dict:
    kind = rng.choice(["Deployment", "Pod", "Service"])
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(rng, "pod"), "spec": _pod_spec(rng)}
    if kind == "Service":
        ports = [{"name": f"p{i}", "port": 80 + i, "targetPort": 8080 + i, "protocol": "TCP"}
                 for i in range(rng.randint(1, 3))]
        return {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(rng, "svc"),
                "spec": {"selector": {"app": "svc"}, "ports": ports, "type": "ClusterIP"}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(rng, "web"),
            "spec": {"replicas": rng.randint(1, 5), "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": _pod_spec(rng)}}}


def variant(rng: random.Random, obj: dict) -> dict:
    """The same object with lists shuffled, elements dropped and server-only elements added."""
    out = copy.deepcopy(obj)
    spec = _pod_spec_of(out)
    if spec is not None:
        containers = spec["containers"]
        rng.shuffle(containers)
        if len(containers) > 1 and rng.random() < 0.5:
            containers.pop(rng.randrange(len(containers)))
        if rng.random() < 0.5:
            containers.append({"name": "server-only", "image": "x:1"})
        for c in containers:
            if "env" in c:
                rng.shuffle(c["env"])
    if "finalizers" in out["metadata"] and rng.random() < 0.5:
        rng.shuffle(out["metadata"]["finalizers"])
    if out["kind"] == "Service" and rng.random() < 0.5:
        rng.shuffle(out["spec"]["ports"])
    return out


def _pod_spec_of(obj: dict) -> dict | None:
    if obj["kind"] == "Pod":
        return obj["spec"]
    if obj["kind"] == "Deployment":
        return obj["spec"]["template"]["spec"]
    return None


# -- random patches --------------------------------------------------------------------------


def random_patch(rng: random.Random, obj: dict) -> dict:
    patch: dict = {}
    meta: dict = {}
    choice = rng.random()
    if choice < 0.3:
        meta["labels"] = {"tier": None, "new": "yes"}
    elif choice < 0.45:
        meta["labels"] = {"$patch": "replace", "only": "this"}
    if rng.random() < 0.3:
        meta["$deleteFromPrimitiveList/finalizers"] = rng.sample(FINALIZERS, 2)
    if rng.random() < 0.3:
        meta["finalizers"] = rng.sample(FINALIZERS, rng.randint(1, 2))
        if rng.random() < 0.5:
            meta["$setElementOrder/finalizers"] = list(meta["finalizers"])
    if rng.random() < 0.2:
        meta["annotations"] = {"$patch": "delete"}
    if meta:
        patch["metadata"] = meta
    spec = _pod_spec_of(obj)
    if spec is not None:
        pod_patch = _pod_spec_patch(rng, spec)
        if obj["kind"] == "Pod":
            patch["spec"] = pod_patch
        else:
            patch["spec"] = {"template": {"spec": pod_patch}}
            if rng.random() < 0.5:
                patch["spec"]["replicas"] = rng.randint(0, 9)
    else:
        ports = [{"port": 80, "targetPort": 9999}]
        if rng.random() < 0.5:
            ports.append({"port": 443, "name": "https", "protocol": "TCP"})
        if rng.random() < 0.4:
            ports.append({"port": 81, "$patch": "delete"})
        patch["spec"] = {"ports": ports}
        if rng.random() < 0.4:
            patch["spec"]["$setElementOrder/ports"] = [{"port": p["port"]} for p in ports
                                                       if "$patch" not in p]
    return patch


def _pod_spec_patch(rng: random.Random, spec: dict) -> dict:
    names = [c["name"] for c in spec["containers"]]
    containers = []
    for name in rng.sample(names, rng.randint(0, len(names))):
        op = rng.random()
        if op < 0.3:
            containers.append({"name": name, "image": "patched:1"})
        elif op < 0.5:
            containers.append({"name": name, "env": [{"name": rng.choice(ENV), "value": "new"},
                                                     {"name": rng.choice(ENV), "$patch": "delete"}]})
        elif op < 0.6:
            containers.append({"name": name, "$patch": "delete"})
        elif op < 0.7:
            containers.append({"name": name, "ports": [{"containerPort": 7000, "name": "extra"}],
                               "args": None})
        elif op < 0.8:
            containers.append({"name": name, "resources": {"$patch": "replace", "limits": {"cpu": "1"}}})
        else:
            containers.append({"name": name, "$deleteFromPrimitiveList/args": ["--flag0"], "args": ["--new"]})
    if rng.random() < 0.4:
        containers.append({"name": "added", "image": "added:1"})
    out: dict = {}
    if containers:
        out["containers"] = containers
    if rng.random() < 0.4:
        kept = [c["name"] for c in containers if c.get("$patch") != "delete"]
        extra = [n for n in names if n not in kept]
        rng.shuffle(extra)
        order = kept[:]
        for n in extra:
            order.insert(rng.randint(0, len(order)), n)
        out["$setElementOrder/containers"] = [{"name": n} for n in order]
    if rng.random() < 0.3:
        out["volumes"] = [{"name": "data", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/tmp"}}]
    if rng.random() < 0.3:
        out["tolerations"] = [{"key": "other", "operator": "Exists"}]
    if rng.random() < 0.2:
        out["imagePullSecrets"] = [{"name": "reg3"}, {"$patch": "replace"}]
    return out


# -- running kubectl -------------------------------------------------------------------------


def _kubectl(objects: list[dict], patch_text: str, workdir: pathlib.Path) -> tuple[int, list, str]:
    path = workdir / "objects.yaml"
    path.write_text("\n---\n".join(json.dumps(o, indent=2) for o in objects) + "\n")
    proc = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(path), "-p", patch_text, "--type", "strategic", "-o", "json"],
        capture_output=True, text=True, env={**os.environ, "KUBECONFIG": "/dev/null"}, timeout=60,
    )
    results = []
    decoder = json.JSONDecoder()
    text, pos = proc.stdout, 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        value, pos = decoder.raw_decode(text, pos)
        results.append(value)
    return proc.returncode, results, proc.stderr


def _outcome(objects: list[dict], patch_text: str, workdir: pathlib.Path) -> list:
    """kubectl's result per object: the patched object or ("error", message)."""
    code, results, stderr = _kubectl(objects, patch_text, workdir)
    if code == 0 and len(results) == len(objects):
        return results
    out = []
    for obj in objects:  # something failed: find out which, one object at a time
        code, results, stderr = _kubectl([obj], patch_text, workdir)
        out.append(results[0] if code == 0 else ("error", stderr.removeprefix("error: ")))
    return out


def _batches():
    rng = random.Random(20260521)
    for b in range(BATCHES):
        base = random_object(rng)
        objects = [base] + [variant(rng, base) for _ in range(VARIANTS - 1)]
        yield pytest.param(objects, json.dumps(random_patch(rng, base)), id=f"batch{b}-{base['kind']}")


@pytest.mark.parametrize("objects,patch_text", list(_batches()))
def test_matches_kubectl(objects, patch_text, tmp_path):
    expected = _outcome(objects, patch_text, tmp_path)
    for obj, want in zip(objects, expected):
        if isinstance(want, tuple):
            with pytest.raises(PatchError) as err:
                patch_local(obj, patch_text, "strategic")
            message = str(err.value)
            assert (message if message.endswith("\n") else message + "\n") == want[1]
        else:
            got = patch_local(obj, patch_text, "strategic")
            assert to_json(got) == to_json(want), f"object {to_json(obj)}\npatch {patch_text}"


# -- bad input: kubectl's error text ---------------------------------------------------------

BAD_TARGET = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "w", "finalizers": ["a", "b"]},
    "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "i"}, {"name": "a", "image": "j"}],
                                   "volumes": [{"name": "v", "emptyDir": {}}]}}},
}
BAD_PATCHES = [
    ("duplicate-merge-keys", "strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}'),
    ("directive-not-string", "strategic", '{"spec":{"$patch":5}}'),
    ("null-element", "strategic", '{"metadata":{"finalizers":[null]}}'),
    ("list-of-lists", "strategic", '{"metadata":{"finalizers":[["x"]]}}'),
    ("mixed-types", "strategic", '{"metadata":{"finalizers":[1]}}'),
    ("set-order-of-scalars", "strategic",
     '{"spec":{"template":{"spec":{"$setElementOrder/containers":[1,2],"containers":[{"name":"a"}]}}}}'),
    ("set-order-misses-item", "strategic",
     '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"zz"}],"containers":[{"name":"b"}]}}}}'),
    ("retain-keys-not-list", "strategic", '{"spec":{"$retainKeys":5}}'),
    ("retain-keys-not-superset", "strategic",
     '{"spec":{"template":{"spec":{"volumes":[{"name":"v","$retainKeys":["name"],"hostPath":{"path":"/"}}]}}}}'),
    ("delete-list-without-field", "strategic", '{"metadata":{"$deleteFromPrimitiveList":["a"]}}'),
    ("list-where-map", "strategic", '{"spec":{"template":{"spec":{"containers":{"name":"a"}}}}}'),
    ("merge-directive-in-list", "strategic",
     '{"spec":{"template":{"spec":{"containers":[{"name":"a","$patch":"merge"}]}}}}'),
    ("bad-yaml", "strategic", "a: b: c"),
    ("bad-yaml-line", "strategic", "- a\nb: 1"),
    ("bad-json-object", "strategic", "{a: 1"),
    ("bad-json-object-merge", "merge", "{a: 1"),
]


@pytest.mark.parametrize("patch_type,patch_text", [pytest.param(t, p, id=i) for i, t, p in BAD_PATCHES])
def test_bad_input_matches_kubectl(patch_type, patch_text, tmp_path):
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(BAD_TARGET))
    proc = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(path), "-p", patch_text, "--type", patch_type, "-o", "json"],
        capture_output=True, text=True, env={**os.environ, "KUBECONFIG": "/dev/null"}, timeout=60,
    )
    if proc.returncode == 0:
        assert to_json(patch_local(BAD_TARGET, patch_text, patch_type)) == to_json(json.loads(proc.stdout))
        return
    with pytest.raises(PatchError) as err:
        patch_local(BAD_TARGET, patch_text, patch_type)
    message = str(err.value)
    assert (message if message.endswith("\n") else message + "\n") == proc.stderr.removeprefix("error: ")


@pytest.mark.parametrize("api_version,kind", [
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ("apiregistration.k8s.io/v1", "APIService"),
    ("apps/v1beta1", "Deployment"),
    ("extensions/v1beta1", "Ingress"),
    ("example.com/v1", "Widget"),
    ("v1", "ConfigMap"),
])
def test_which_kinds_support_strategic_patch(api_version, kind, tmp_path):
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "finalizers": ["b"]}}
    patch_text = '{"metadata":{"labels":{"a":"b"},"finalizers":["a"]}}'
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(obj))
    proc = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(path), "-p", patch_text, "--type", "strategic", "-o", "json"],
        capture_output=True, text=True, env={**os.environ, "KUBECONFIG": "/dev/null"}, timeout=60,
    )
    if proc.returncode == 0:
        assert to_json(patch_local(obj, patch_text, "strategic")) == to_json(json.loads(proc.stdout))
    else:
        with pytest.raises(PatchError) as err:
            patch_local(obj, patch_text, "strategic")
        assert str(err.value) + "\n" == proc.stderr.removeprefix("error: ")


# -- list ordering stress: merge lists and primitive lists with duplicates, deletions,
# $setElementOrder and lists longer than Go's insertion-sort threshold --------------------

POOL = [f"n{i}" for i in range(16)]
FINALIZER_POOL = ["f1", "f2", "f3", "f4", "f5", "f6", "10", "9"]


def _ordering_object(rng: random.Random) -> dict:
    names = rng.sample(POOL, rng.randint(0, 15))
    if names and rng.random() < 0.2:
        names.append(rng.choice(names))  # a duplicate merge key
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": n, "image": f"i{j}"} for j, n in enumerate(names)]}}
    finalizers = [rng.choice(FINALIZER_POOL) for _ in range(rng.randint(0, 14))]
    if finalizers or rng.random() < 0.5:
        obj["metadata"]["finalizers"] = finalizers
    return obj


def _ordering_patch(rng: random.Random) -> dict:
    patch: dict = {"spec": {}, "metadata": {}}
    containers = []
    for n in rng.sample(POOL, rng.randint(0, 8)):
        containers.append({"name": n, "$patch": "delete"} if rng.random() < 0.3 else {"name": n, "image": "new"})
    if rng.random() < 0.1:
        containers.append({"$patch": "replace"})
    if containers or rng.random() < 0.3:
        patch["spec"]["containers"] = containers
    if rng.random() < 0.6:
        order = [c["name"] for c in containers if "name" in c and c.get("$patch") != "delete"]
        for extra in rng.sample(POOL, rng.randint(0, 6)):
            if extra not in order:
                order.insert(rng.randint(0, len(order)), extra)
        patch["spec"]["$setElementOrder/containers"] = [{"name": n} for n in order]
    # A patch holding both a primitive list and its $deleteFromPrimitiveList is applied in
    # Go's random map order (kubectl's own answer varies run to run), so use one or the other.
    if rng.random() < 0.6:
        patch["metadata"]["finalizers"] = [rng.choice(FINALIZER_POOL) for _ in range(rng.randint(0, 6))]
    elif rng.random() < 0.6:
        patch["metadata"]["$deleteFromPrimitiveList/finalizers"] = rng.sample(FINALIZER_POOL, rng.randint(1, 3))
    if rng.random() < 0.5:
        order = list(patch["metadata"].get("finalizers", []))
        for extra in rng.sample(FINALIZER_POOL, rng.randint(0, 4)):
            if extra not in order:
                order.insert(rng.randint(0, len(order)), extra)
        patch["metadata"]["$setElementOrder/finalizers"] = order
    return patch


def _ordering_batches():
    rng = random.Random(7)
    for b in range(8):
        yield pytest.param([_ordering_object(rng) for _ in range(6)], json.dumps(_ordering_patch(rng)),
                           id=f"ordering{b}")


@pytest.mark.parametrize("objects,patch_text", list(_ordering_batches()))
def test_list_ordering_matches_kubectl(objects, patch_text, tmp_path):
    test_matches_kubectl(objects, patch_text, tmp_path)


@pytest.mark.parametrize("patch_text", [
    # Go's %v of every JSON type, seen through kubectl's error text.
    '{"metadata":{"finalizers":[1000000.5,1e6,1e21,0.00001,0.0001,123456.0,1234567.0,1.5,-0.0,100000.0,1e20,'
    '9223372036854775807,9223372036854775808,true,null,{"b":[1,{"c":"d"}],"a":"x y"},[]]}}',
    # Numbers after kubectl's encode/decode round trip, JSON and YAML patch text.
    '{"spec":{"x":1.0,"y":1e3,"z":2.5,"big":1e20,"neg":-0.0}}',
    "spec:\n  x: 1.0\n  y: 1e3\n  z: 2.5\n  when: 2024-01-02\n  on: yes\n",
    "spec: [\n",
], ids=["fmt-v", "numbers-json", "numbers-yaml", "bad-yaml"])
def test_values_match_kubectl(patch_text, tmp_path):
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": ["a"]}, "spec": {"w": 3.0}}
    _compare_with_kubectl(obj, "strategic", patch_text, tmp_path)


def _compare_with_kubectl(obj, patch_type, patch_text, tmp_path):
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(obj))
    proc = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(path), "-p", patch_text, "--type", patch_type, "-o", "json"],
        capture_output=True, text=True, env={**os.environ, "KUBECONFIG": "/dev/null"}, timeout=60,
    )
    if proc.returncode == 0:
        got = patch_local(obj, patch_text, patch_type, yaml_decoder=go_yaml)
        assert to_json(got) == to_json(json.loads(proc.stdout))
        return
    with pytest.raises(PatchError) as err:
        patch_local(obj, patch_text, patch_type, yaml_decoder=go_yaml)
    message = str(err.value)
    assert (message if message.endswith("\n") else message + "\n") == proc.stderr.removeprefix("error: ")
