"""Controllers write through the API server's admission: a mutating webhook on Pods (sidecar-style
injection) patches the Pods the ReplicaSet controller creates for a Deployment, and a validating
webhook that refuses them leaves the ReplicaSet short of replicas with the refusal in its events."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "server"))
from webhook_support import WebhookServer, allow, deny, hook, json_patch, make_certificates  # noqa: E402

ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def answer(path: str, review: dict):
    if path.startswith("/inject"):
        return json_patch(review, [{"op": "add", "path": "/metadata/annotations",
                                    "value": {"injected-by": "webhook"}}])
    if path.startswith("/refuse"):
        return deny(review, "no pods today")
    return allow(review)


@pytest.fixture
def webhook(tmp_path):
    certs = make_certificates(tmp_path / "pki")
    with WebhookServer(certs, answer) as server:
        yield server, certs


def deployment(name: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def configure(api, kind: str, resource: str, entry: dict) -> None:
    body = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": "pods"},
            "webhooks": [entry]}
    assert api.post(f"{ADMISSION}/{resource}", json=body).status_code == 201


def pods(api, app: str) -> list[dict]:
    return api.get("/api/v1/namespaces/default/pods", params={"labelSelector": f"app={app}"}).json()["items"]


def test_pods_created_by_controllers_are_mutated(cluster, api, webhook):
    server, certs = webhook
    configure(api, "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
              hook("inject.example.com", server.url + "/inject", certs["ca_bundle"], resources=("pods",),
                   operations=("CREATE",), objectSelector={"matchLabels": {"app": "web"}}))
    assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deployment("web")).status_code == 201
    assert cluster.settle()
    created = pods(api, "web")
    assert len(created) == 2
    assert all(p["metadata"]["annotations"] == {"injected-by": "webhook"} for p in created)
    users = {r["request"]["userInfo"]["username"] for r in server.reviews("/inject")}
    assert users == {"system:kube-controller-manager"}


def test_pods_refused_by_a_webhook_are_not_created(cluster, api, webhook):
    server, certs = webhook
    configure(api, "ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
              hook("refuse.example.com", server.url + "/refuse", certs["ca_bundle"], resources=("pods",),
                   operations=("CREATE",), objectSelector={"matchLabels": {"app": "db"}}))
    assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deployment("db")).status_code == 201
    cluster.settle(timeout=10)
    assert pods(api, "db") == []
    assert server.reviews("/refuse")
    events = api.get("/api/v1/namespaces/default/events").json()["items"]
    failed = [e for e in events if e.get("reason") == "FailedCreate"]
    assert failed and 'admission webhook "refuse.example.com" denied the request: no pods today' in failed[0]["message"]
