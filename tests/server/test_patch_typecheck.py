"""A patch whose result does not decode into the built-in Go type is refused as kube-apiserver
1.32's patch handler refuses it (k8s.io/apiserver endpoints/handlers/patch.go): a 422 Invalid
with one cause on the field `patch`, quoting the patched JSON (json/merge patches, decoded by
encoding/json) or the patch as Go's `%+v` map (strategic, copied by the unstructured
converter, whose messages differ). The Go sources were read for the wording; the recorded
cases (fieldvalidation-strict-*, patch-change-kind) are replayed in
test_admission_integration_errors."""
from __future__ import annotations

import json
import pathlib
import subprocess

import httpx
import pytest

from kubelite.server import patchcheck
from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.storage.memory import MemoryStore
from test_serve_support import Served

TOKEN = "t"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def client():
    api = APIServer(MemoryStore(), Registry())
    api.bootstrap()
    c = httpx.Client(transport=InProcessTransport(create_app(api, token=TOKEN)), base_url="https://kubelite",
                     headers={"Authorization": f"Bearer {TOKEN}"})
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert c.post(DEPLOY, json=body).status_code == 201
    assert c.post(CM, json={"metadata": {"name": "cm"}, "data": {"a": "1"}}).status_code == 201
    yield c
    c.close()


def _patch(client, path, kind, body, **params):
    content_type = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
                    "strategic": "application/strategic-merge-patch+json"}[kind]
    return client.patch(path, content=json.dumps(body), params=params, headers={"Content-Type": content_type})


def _invalid(response) -> tuple[str, str]:
    """(quoted value, detail) of the single `patch` cause; checks the Status shape."""
    assert response.status_code == 422, response.text
    status = response.json()
    assert status["reason"] == "Invalid" and "details" in status and "kind" not in status["details"]
    [cause] = status["details"]["causes"]
    assert cause["field"] == "patch" and cause["reason"] == "FieldValueInvalid"
    assert status["message"] == ' "" is invalid: patch: ' + cause["message"]
    value, _, detail = cause["message"].removeprefix("Invalid value: ").partition('": ')
    return json.loads(value + '"'), detail


REPLICAS_JSON = "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"


@pytest.mark.parametrize("kind, body", [
    ("merge", {"spec": {"replicas": "x"}}),
    ("json", [{"op": "replace", "path": "/spec/replicas", "value": "x"}]),
])
def test_json_and_merge_patches_quote_the_patched_json(client, kind, body):
    value, detail = _invalid(_patch(client, f"{DEPLOY}/web", kind, body))
    assert detail == REPLICAS_JSON
    obj = json.loads(value)
    # the patch walked root and spec: re-marshalled maps, sorted; metadata kept its struct order
    assert list(obj) == sorted(obj)
    assert list(obj["spec"]) == sorted(obj["spec"])
    assert list(obj["metadata"])[:3] == ["name", "namespace", "uid"]
    assert list(obj["spec"]["strategy"]["rollingUpdate"]) == ["maxUnavailable", "maxSurge"]
    assert obj["spec"]["replicas"] == "x"


@pytest.mark.parametrize("body, detail", [
    ({"spec": {"replicas": "x"}}, "unrecognized type: int32"),
    ({"spec": {"paused": "yes"}}, "unrecognized type: bool"),
    ({"spec": {"replicas": 1.5}}, "cannot convert float64 to int32"),
    ({"spec": {"template": "x"}}, "cannot restore struct from: string"),
    ({"spec": {"template": {"spec": {"containers": {"a": 1}}}}}, "cannot restore slice from map"),
    ({"metadata": {"labels": ["a"]}}, "cannot restore map from slice"),
    ({"spec": {"strategy": {"rollingUpdate": {"maxSurge": True}}}},
     "json: cannot unmarshal bool into Go value of type int32"),
])
def test_strategic_patches_quote_the_patch_as_a_go_map(client, body, detail):
    value, got = _invalid(_patch(client, f"{DEPLOY}/web", "strategic", body))
    assert got == detail
    assert value == patchcheck.go_print(body)


def test_strategic_number_into_string_and_whole_floats(client):
    value, detail = _invalid(_patch(client, f"{CM}/cm", "strategic", {"data": {"b": 2}}))
    assert (value, detail) == ("map[data:map[b:2]]", "cannot convert int64 to string")
    ok = _patch(client, f"{DEPLOY}/web", "strategic", {"spec": {"replicas": 2.0}})
    assert ok.status_code == 200 and ok.json()["spec"]["replicas"] == 2


def test_merge_patch_changing_kind_decodes_as_that_kind(client):
    value, detail = _invalid(_patch(client, f"{CM}/cm", "merge", {"kind": "Secret"}))
    assert detail == "illegal base64 data at input byte 0"
    assert json.loads(value)["kind"] == "Secret"
    _, detail = _invalid(_patch(client, f"{CM}/cm", "merge", {"kind": "Service"}))
    assert detail == "converting (v1.Service) to (core.ConfigMap): unknown conversion"


def test_nothing_is_stored_by_a_refused_patch(client):
    _invalid(_patch(client, f"{DEPLOY}/web", "merge", {"spec": {"replicas": "x"}}))
    assert client.get(f"{DEPLOY}/web").json()["spec"]["replicas"] in (1, 2)


def test_go_print_formats():
    assert patchcheck.go_print({"b": [1, "x", None, True], "a": {"z": 1.5, "y": 1e21, "x": 0.00001}}) == \
        "map[a:map[x:1e-05 y:1e+21 z:1.5] b:[1 x <nil> true]]"
    assert patchcheck.go_print({"n": 1e20}) == "map[n:100000000000000000000]"


def test_merge_rendering_sorts_only_what_the_patch_walked():
    original = {"kind": "K", "apiVersion": "v", "metadata": {"name": "n", "labels": {"b": "1", "a": "2"}},
                "spec": {"z": 1, "a": {"y": 1, "x": 2}, "o": {"q": 1, "p": 2}}}
    patch = {"spec": {"z": 2, "new": {"d": 1, "c": None, "b": 2}, "o": [1]}}
    patched = {"kind": "K", "apiVersion": "v", "metadata": original["metadata"],
               "spec": {"z": 2, "a": {"y": 1, "x": 2}, "o": [1], "new": {"d": 1, "b": 2}}}
    out = patchcheck.merge_rendering(patched, patch, original)
    assert patchcheck.go_compact(out) == (
        '{"apiVersion":"v","kind":"K","metadata":{"name":"n","labels":{"b":"1","a":"2"}},'
        '"spec":{"a":{"y":1,"x":2},"new":{"b":2,"d":1},"o":[1],"z":2}}')


@pytest.mark.kubectl
@pytest.mark.skipif(not pathlib.Path("/usr/bin/kubectl").exists(), reason="kubectl missing")
def test_kubectl_prints_the_invalid_patch(tmp_path):
    server = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
    try:
        def kubectl(*args):
            return subprocess.run(["/usr/bin/kubectl", "--kubeconfig", str(server.kubeconfig), "--cache-dir",
                                   str(tmp_path / "cache"), *args], capture_output=True, text=True, timeout=60)

        assert kubectl("create", "deployment", "web", "--image=nginx").returncode == 0
        smp = kubectl("patch", "deployment", "web", "-p", '{"spec":{"replicas":"x"}}')
        assert (smp.returncode, smp.stdout) == (1, "")
        assert smp.stderr == ('The request is invalid: patch: Invalid value: "map[spec:map[replicas:x]]": '
                              "unrecognized type: int32\n")
        merge = kubectl("patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"replicas":"x"}}')
        assert merge.returncode == 1
        assert merge.stderr.startswith('The request is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",')
        assert merge.stderr.endswith(f": {REPLICAS_JSON}\n")
    finally:
        server.stop()
