"""matchConditions of admission webhooks, evaluated with CEL before a webhook is called.

The conditions are the kubernetes.io documentation's ("Dynamic Admission Control", Matching
requests: matchConditions); the texts are kube-apiserver 1.32's (k8s.io/apiserver
pkg/admission/plugin/webhook/generic/webhook.go ShouldCallHook, matchconditions/matcher.go).
"""
from __future__ import annotations

import contextlib

import pytest
from webhook_support import WebhookServer, allow, deny, hook, make_certificates, webhook_configuration

from kubelite.server.cluster import Cluster

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"

DOCUMENTED = [
    {"name": "exclude-leases",
     "expression": '!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")'},
    {"name": "exclude-kubelet-requests", "expression": '!("system:nodes" in request.userInfo.groups)'},
    {"name": "rbac", "expression": 'request.resource.group != "rbac.authorization.k8s.io"'},
    {"name": "not-skipped", "expression": "!object.metadata.name.endsWith('-skipped')"},
]


def answer(path: str, review: dict):
    name = ((review["request"].get("object") or {}).get("metadata") or {}).get("name", "")
    return deny(review, f"{name} is not welcome") if name.startswith("bad") else allow(review)


@pytest.fixture(scope="module")
def webhook(tmp_path_factory):
    certs = make_certificates(tmp_path_factory.mktemp("webhook-pki"))
    with WebhookServer(certs, answer) as server:
        yield server, certs["ca_bundle"]


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", controllers=False) as cluster, cluster.http_client() as client:
        yield client


@contextlib.contextmanager
def validating(api, *hooks: dict):
    created = api.post(f"{ADMISSION}/validatingwebhookconfigurations",
                       json=webhook_configuration("ValidatingWebhookConfiguration", "conditions", list(hooks)))
    assert created.status_code == 201, created.text
    try:
        yield
    finally:
        assert api.delete(f"{ADMISSION}/validatingwebhookconfigurations/conditions").status_code == 200


def configmap(name: str, **labels) -> dict:
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


def test_the_webhook_is_called_only_when_every_condition_holds(api, webhook):
    server, ca = webhook
    with validating(api, hook("deny.example.com", server.url + "/deny", ca, matchConditions=DOCUMENTED)):
        before = len(server.reviews("/deny"))
        refused = api.post(CONFIGMAPS, json=configmap("bad-one"))
        assert refused.status_code == 403
        assert refused.json()["message"] == 'admission webhook "deny.example.com" denied the request: bad-one is not welcome'
        assert len(server.reviews("/deny")) == before + 1
        skipped = api.post(CONFIGMAPS, json=configmap("bad-skipped"))
        assert skipped.status_code == 201, skipped.text
        assert len(server.reviews("/deny")) == before + 1  # not called
    assert api.delete(f"{CONFIGMAPS}/bad-skipped").status_code == 200


def test_conditions_that_cannot_be_evaluated_follow_the_failure_policy(api, webhook):
    server, ca = webhook
    team = [{"name": "team", "expression": "object.metadata.labels.team == 'x'"}]
    with validating(api, hook("fail.example.com", server.url + "/deny", ca, matchConditions=team,
                              failurePolicy="Fail")):
        refused = api.post(CONFIGMAPS, json=configmap("good-unlabelled"))
        assert refused.status_code == 403
        assert refused.json() == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "configmaps \"good-unlabelled\" is forbidden: expression 'object.metadata.labels.team == "
                       "'x'' resulted in error: no such key: labels",
            "reason": "Forbidden", "details": {"name": "good-unlabelled", "kind": "configmaps"}, "code": 403}
        assert api.post(CONFIGMAPS, json=configmap("good-labelled", team="x")).status_code == 201
    with validating(api, hook("ignore.example.com", server.url + "/deny", ca, matchConditions=team,
                              failurePolicy="Ignore")):
        before = len(server.reviews("/deny"))
        assert api.post(CONFIGMAPS, json=configmap("bad-unlabelled")).status_code == 201
        assert len(server.reviews("/deny")) == before  # skipped, not called
    # a false condition wins over one that fails: the webhook is skipped, no error
    mixed = [{"name": "fails", "expression": "object.metadata.labels.team == 'x'"},
             {"name": "false", "expression": "false"}]
    with validating(api, hook("mixed.example.com", server.url + "/deny", ca, matchConditions=mixed,
                              failurePolicy="Fail")):
        assert api.post(CONFIGMAPS, json=configmap("bad-mixed")).status_code == 201
    for name in ("good-labelled", "bad-unlabelled", "bad-mixed"):
        assert api.delete(f"{CONFIGMAPS}/{name}").status_code == 200


def test_old_object_and_operation_in_conditions(api, webhook):
    server, ca = webhook
    on_rename = [{"name": "updates-only", "expression": "request.operation == 'UPDATE' && "
                                                        "oldObject.data.k != object.data.k"}]
    with validating(api, hook("changes.example.com", server.url + "/deny", ca, matchConditions=on_rename)):
        assert api.post(CONFIGMAPS, json=configmap("bad-created")).status_code == 201
        same = configmap("bad-created", touched="yes")
        assert api.put(f"{CONFIGMAPS}/bad-created", json=same).status_code == 200
        changed = dict(same, data={"k": "other"})
        assert api.put(f"{CONFIGMAPS}/bad-created", json=changed).status_code == 403
    assert api.delete(f"{CONFIGMAPS}/bad-created").status_code == 200


def test_a_condition_that_does_not_compile_is_refused_with_the_configuration(api, webhook):
    server, ca = webhook
    broken = [{"name": "typo", "expression": "objekt.metadata.name == 'x'"}]
    refused = api.post(f"{ADMISSION}/validatingwebhookconfigurations", json=webhook_configuration(
        "ValidatingWebhookConfiguration", "broken", [hook("broken.example.com", server.url, ca, matchConditions=broken)]))
    assert refused.status_code == 422
    assert refused.json()["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "webhooks[0].matchConditions[0].expression",
        "message": "Invalid value: \"objekt.metadata.name == 'x'\": compilation failed: ERROR: <input>:1:1: "
                   "undeclared reference to 'objekt' (in container '')\n | objekt.metadata.name == 'x'\n | ^"}]
