"""A patch to /scale carrying the parent's kind and apiVersion (Ansible's k8s_scale sends one).

kube-apiserver's patch handler (endpoints/handlers/patch.go, v1.32): a strategic merge patch is
copied into the versioned Scale struct, whose Go type decides the conversion, so the kind is
overwritten and the replicas applied; a JSON merge patch or JSON patch is decoded from the
patched JSON, where the kind names the type built (a Deployment), and the conversion to a Scale
fails: 422 quoting the patched JSON with the converter's message (recorded for a PUT of a
Deployment to /scale: "converting (v1.Deployment) to (autoscaling.Scale): unknown conversion").
"""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

from tests.server.fidelity_support import deployment as _deployment
from tests.server.test_serve_support import serving

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
ANSIBLE_BODY = {"kind": "Deployment", "apiVersion": "apps/v1", "spec": {"replicas": 3}}


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            yield client


def _patch(api, name, body, content_type):
    return api.patch(f"{DEPLOYMENTS}/{name}/scale", content=json.dumps(body),
                     headers={"Content-Type": content_type})


def test_strategic_patch_overwrites_the_kind(api):
    api.post(DEPLOYMENTS, json=_deployment("smp"))
    answer = _patch(api, "smp", ANSIBLE_BODY, "application/strategic-merge-patch+json")
    assert answer.status_code == 200, answer.text
    scale = answer.json()
    assert (scale["kind"], scale["apiVersion"], scale["spec"]) == ("Scale", "autoscaling/v1", {"replicas": 3})
    assert api.get(f"{DEPLOYMENTS}/smp").json()["spec"]["replicas"] == 3


def _expected_422(rendered: dict, detail: str) -> dict:
    quoted = json.dumps(json.dumps(rendered, separators=(",", ":")))
    message = f"Invalid value: {quoted}: {detail}"
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f' "" is invalid: patch: {message}', "reason": "Invalid",
            "details": {"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]},
            "code": 422}


def test_merge_patch_fails_to_convert_the_kind(api):
    api.post(DEPLOYMENTS, json=_deployment("merge"))
    scale = api.get(f"{DEPLOYMENTS}/merge/scale").json()
    answer = _patch(api, "merge", ANSIBLE_BODY, "application/merge-patch+json")
    assert answer.status_code == 422
    # the merge-patch library re-marshals the levels it merged into with sorted keys
    rendered = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": scale["metadata"],
                "spec": {"replicas": 3}, "status": scale["status"]}
    assert answer.json() == _expected_422(
        rendered, "converting (v1.Deployment) to (autoscaling.Scale): unknown conversion")
    assert api.get(f"{DEPLOYMENTS}/merge").json()["spec"]["replicas"] == 1


def test_json_patch_fails_the_same_way(api):
    api.post(DEPLOYMENTS, json=_deployment("jsonpatch"))
    ops = [{"op": "replace", "path": "/kind", "value": "Deployment"},
           {"op": "replace", "path": "/apiVersion", "value": "apps/v1"}]
    answer = _patch(api, "jsonpatch", ops, "application/json-patch+json")
    assert answer.status_code == 422
    assert answer.json()["message"].endswith("converting (v1.Deployment) to (autoscaling.Scale): unknown conversion")


def test_a_kind_the_scale_version_lacks_is_not_registered(api):
    api.post(DEPLOYMENTS, json=_deployment("kindonly"))
    answer = _patch(api, "kindonly", {"kind": "Deployment"}, "application/merge-patch+json")
    assert answer.status_code == 422
    assert answer.json()["message"].endswith(
        ': no kind "Deployment" is registered for version "autoscaling/v1" in scheme '
        '"pkg/api/legacyscheme/scheme.go:30"')


def test_merge_patch_naming_the_scale_itself_applies(api):
    api.post(DEPLOYMENTS, json=_deployment("plain"))
    body = {"kind": "Scale", "apiVersion": "autoscaling/v1", "spec": {"replicas": 2}}
    answer = _patch(api, "plain", body, "application/merge-patch+json")
    assert answer.status_code == 200, answer.text
    assert answer.json()["spec"] == {"replicas": 2}


def test_the_official_dynamic_client_scales_with_the_parents_kind(tmp_path):
    kubernetes = pytest.importorskip("kubernetes")
    from kubernetes.dynamic import DynamicClient

    with serving(tmp_path, "--controllers=-*") as server:
        client = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
        try:
            dynamic = DynamicClient(client)
            deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
            deployments.create(body=_deployment("dyn"), namespace="default")
            # the dynamic client patches with a strategic merge patch unless told otherwise
            scale = deployments.subresources["scale"].patch(body=ANSIBLE_BODY, name="dyn", namespace="default")
            assert (scale.kind, scale.spec.replicas) == ("Scale", 3)
            assert deployments.get(name="dyn", namespace="default").spec.replicas == 3
        finally:
            client.close()
