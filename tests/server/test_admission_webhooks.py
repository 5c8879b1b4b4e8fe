"""Admission webhooks called by the API server (in-process cluster, a real HTTPS webhook server).

Texts are kube-apiserver's (k8s.io/apiserver pkg/admission/plugin/webhook: ToStatusErr,
ErrCallingWebhook, VerifyAdmissionResponse, NewDryRunUnsupportedErr) with Go's HTTP client's
dial errors and client-go's generic server responses.
"""
from __future__ import annotations

import contextlib
import json
import socket

import pytest
from webhook_support import (
    WebhookServer, allow, deny, hook, json_patch, make_certificates, webhook_configuration,
)

from kubelite.server.cluster import Cluster

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def answer(path: str, review: dict):
    """The scripted webhook: what each path answers."""
    request = review["request"]
    obj = request.get("object") or {}
    name = (obj.get("metadata") or {}).get("name", "")
    route = path.split("?")[0]
    if route == "/deny":
        return deny(review, f"{name} is not welcome") if name.startswith("bad") else allow(review)
    if route == "/deny-old":
        old_name = (request.get("oldObject") or {}).get("metadata", {}).get("name", "")
        return deny(review, f"{old_name} stays") if old_name.startswith("bad") else allow(review)
    if route == "/deny-plain":
        return allow(review, allowed=False)
    if route == "/label":
        return json_patch(review, [{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}],
                          warnings=["labelled by the webhook"])
    if route == "/invalid":
        return json_patch(review, [{"op": "add", "path": "/metadata/labels", "value": {"bad key!": "x"}}])
    if route == "/label-a":
        labels = dict((obj.get("metadata") or {}).get("labels") or {})
        labels["a"] = "1"
        return json_patch(review, [{"op": "add", "path": "/metadata/labels", "value": labels}])
    if route == "/label-b":
        labels = dict((obj.get("metadata") or {}).get("labels") or {})
        if labels.get("b") == "1":
            return allow(review)
        labels["b"] = "1"
        return json_patch(review, [{"op": "add", "path": "/metadata/labels", "value": labels}])
    if route == "/strategy":
        if obj.get("kind") == "Secret":
            return json_patch(review, [{"op": "add", "path": "/stringData", "value": {"added": "by-webhook"}}])
        return json_patch(review, [{"op": "add", "path": "/status", "value": {"replicas": 9}},
                                   {"op": "replace", "path": "/spec/replicas", "value": 3}])
    if route == "/together":
        server.barrier.wait()  # raises (and the webhook answers nothing) if the other never comes
        return allow(review)
    if route == "/trickle":
        return "trickle"  # headers now, then a byte at a time until released (WebhookServer)
    if route == "/bad-patch":
        return json_patch(review, [{"op": "remove", "path": "/nope"}])
    if route == "/hpa-v1":
        return answer_hpa(review)
    if route == "/text":
        return 200, "text/plain", b"hello"
    if route == "/not-json":
        return 200, "application/json", b"garbage"
    if route == "/wrong-uid":
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "response": {"uid": "nope", "allowed": True}}
    if route == "/no-kind":
        return {"response": {"uid": request["uid"], "allowed": True}}
    if route == "/no-response":
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}
    if route == "/error":
        return 500, "text/plain", b"boom"
    if route == "/slow":
        server.released.wait(30)  # until the test ends: the API server must give up first
        return allow(review)
    return allow(review)


server: WebhookServer  # the module's webhook server, for /slow


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("webhook-pki"),
                             hostnames=("localhost", "hooks.default.svc", "hooks-slice.default.svc",
                                        "hooks-ext.default.svc"))


@pytest.fixture(scope="module")
def webhook(certs):
    global server
    with WebhookServer(certs, answer) as server:
        yield server


@pytest.fixture(scope="module")
def cluster():
    with Cluster("memory://", controllers=False) as c:
        yield c


@pytest.fixture
def api(cluster):
    with cluster.http_client() as client:
        yield client


@contextlib.contextmanager
def configured(api, kind: str, *hooks: dict):
    """A webhook configuration for the duration of a test."""
    resource = "validatingwebhookconfigurations" if kind.startswith("Validating") else "mutatingwebhookconfigurations"
    name = hooks[0]["name"].split(".")[0] + "-config"
    created = api.post(f"{ADMISSION}/{resource}", json=webhook_configuration(kind, name, list(hooks)))
    assert created.status_code == 201, created.text
    try:
        yield created.json()
    finally:
        assert api.delete(f"{ADMISSION}/{resource}/{name}").status_code == 200


def validating(api, *hooks):
    return configured(api, "ValidatingWebhookConfiguration", *hooks)


def mutating(api, *hooks):
    return configured(api, "MutatingWebhookConfiguration", *hooks)


def configmap(name: str, **labels) -> dict:
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_validating_webhook_denies_with_its_message_and_nothing_is_stored(api, webhook, certs):
    with validating(api, hook("deny.example.com", webhook.url + "/deny", certs["ca_bundle"])):
        refused = api.post(CONFIGMAPS, json=configmap("bad-one"))
        assert refused.status_code == 403
        assert refused.json() == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'admission webhook "deny.example.com" denied the request: bad-one is not welcome',
            "code": 403}
        assert api.get(f"{CONFIGMAPS}/bad-one").status_code == 404
        assert api.post(CONFIGMAPS, json=configmap("good-one")).status_code == 201
    review = webhook.reviews("/deny")[-1]
    assert review["apiVersion"] == "admission.k8s.io/v1" and review["kind"] == "AdmissionReview"
    request = review["request"]
    assert request["operation"] == "CREATE" and request["oldObject"] is None and request["dryRun"] is False
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["namespace"] == "default" and request["name"] == "good-one"
    assert request["userInfo"]["username"] == "kubernetes-admin"
    assert request["options"]["kind"] == "CreateOptions"


def test_denial_without_a_message_says_without_explanation(api, webhook, certs):
    with validating(api, hook("plain.example.com", webhook.url + "/deny-plain", certs["ca_bundle"])):
        refused = api.post(CONFIGMAPS, json=configmap("plain"))
    assert refused.status_code == 400
    assert refused.json()["message"] == 'admission webhook "plain.example.com" denied the request without explanation'


def test_mutating_webhook_patch_is_applied_and_its_warning_returned(api, webhook, certs):
    with mutating(api, hook("label.example.com", webhook.url + "/label", certs["ca_bundle"])):
        created = api.post(CONFIGMAPS, json=configmap("mutated"))
        assert created.status_code == 201, created.text
        assert created.json()["metadata"]["labels"] == {"mutated": "yes"}
        assert created.headers["warning"] == '299 - "labelled by the webhook"'
        # The webhook saw the object before the server filled its system fields.
        sent = webhook.reviews("/label")[-1]["request"]["object"]["metadata"]
        assert "uid" not in sent and "creationTimestamp" not in sent
        updated = api.put(f"{CONFIGMAPS}/mutated", json=configmap("mutated", other="x"))
        assert updated.json()["metadata"]["labels"] == {"mutated": "yes"}
    request = webhook.reviews("/label")[-1]["request"]
    assert request["operation"] == "UPDATE" and request["options"]["kind"] == "UpdateOptions"
    assert request["oldObject"]["metadata"]["labels"] == {"mutated": "yes"}
    assert request["object"]["metadata"]["labels"] == {"other": "x"}
    assert api.get(f"{CONFIGMAPS}/mutated").json()["metadata"]["labels"] == {"mutated": "yes"}


def test_a_patch_making_the_object_invalid_is_refused_by_validation(api, webhook, certs):
    with mutating(api, hook("invalid.example.com", webhook.url + "/invalid", certs["ca_bundle"])):
        refused = api.post(CONFIGMAPS, json=configmap("invalidated"))
    assert refused.status_code == 422
    assert refused.json()["message"].startswith('ConfigMap "invalidated" is invalid: metadata.labels: Invalid value: '
                                                '"bad key!"')
    assert api.get(f"{CONFIGMAPS}/invalidated").status_code == 404


def test_reinvocation_if_needed_calls_an_earlier_webhook_again_after_a_later_change(api, webhook, certs):
    before = len(webhook.reviews("/label-a"))
    with mutating(api, hook("a.example.com", webhook.url + "/label-a", certs["ca_bundle"],
                            reinvocationPolicy="IfNeeded"),
                  hook("b.example.com", webhook.url + "/label-b", certs["ca_bundle"])):
        created = api.post(CONFIGMAPS, json=configmap("reinvoked"))
    assert created.json()["metadata"]["labels"] == {"a": "1", "b": "1"}
    calls = webhook.reviews("/label-a")[before:]
    assert len(calls) == 2  # once, then again because b changed the object after it
    assert calls[1]["request"]["object"]["metadata"]["labels"] == {"a": "1", "b": "1"}


def test_reinvocation_never_calls_each_webhook_once(api, webhook, certs):
    before = len(webhook.reviews("/label-a"))
    with mutating(api, hook("a.example.com", webhook.url + "/label-a", certs["ca_bundle"]),
                  hook("b.example.com", webhook.url + "/label-b", certs["ca_bundle"])):
        api.post(CONFIGMAPS, json=configmap("once"))
    assert len(webhook.reviews("/label-a")) - before == 1


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_a_dead_webhook_fails_closed_or_open(api, certs, policy):
    port = closed_port()
    url = f"https://127.0.0.1:{port}/validate"
    with validating(api, hook("dead.example.com", url, certs["ca_bundle"], failurePolicy=policy)):
        answer_ = api.post(CONFIGMAPS, json=configmap(f"dead-{policy.lower()}"))
    if policy == "Ignore":
        assert answer_.status_code == 201
        return
    detail = (f'failed calling webhook "dead.example.com": failed to call webhook: Post "{url}?timeout=10s": '
              f"dial tcp 127.0.0.1:{port}: connect: connection refused")
    assert answer_.status_code == 500
    assert answer_.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": f"Internal error occurred: {detail}", "reason": "InternalError",
                              "details": {"causes": [{"message": detail}]}, "code": 500}
    assert api.get(f"{CONFIGMAPS}/dead-fail").status_code == 404


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_a_slow_webhook_times_out_after_its_timeout_seconds(api, webhook, certs, policy):
    with mutating(api, hook("slow.example.com", webhook.url + "/slow", certs["ca_bundle"], timeoutSeconds=1,
                            failurePolicy=policy)):
        answer_ = api.post(CONFIGMAPS, json=configmap(f"slow-{policy.lower()}"))
    if policy == "Ignore":
        assert answer_.status_code == 201
        return
    assert answer_.status_code == 500
    assert answer_.json()["message"] == (
        'Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: '
        f'Post "{webhook.url}/slow?timeout=1s": context deadline exceeded')


GARBAGE = [
    ("/text", "failed to call webhook: serializer for text/plain doesn't exist"),
    ("/not-json", "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'g' "
                  "looking for beginning of value"),
    ("/wrong-uid", 'received invalid webhook response: expected response.uid="{uid}", got "nope"'),
    ("/no-kind", "received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
                 "Kind=AdmissionReview, got /, Kind="),
    ("/no-response", "received invalid webhook response: webhook response was absent"),
    ("/error", 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding'),
]


@pytest.mark.parametrize("route,reason", GARBAGE, ids=[g[0].strip("/") for g in GARBAGE])
def test_garbage_answers_fail_closed_with_the_reason(api, webhook, certs, route, reason):
    name = "garbage" + route.replace("/", "-")
    with validating(api, hook("garbage.example.com", webhook.url + route, certs["ca_bundle"])):
        refused = api.post(CONFIGMAPS, json=configmap(name))
    uid = webhook.reviews(route)[-1]["request"]["uid"]
    assert refused.status_code == 500
    assert refused.json()["message"] == ('Internal error occurred: failed calling webhook "garbage.example.com": '
                                         + reason.format(uid=uid))
    assert api.get(f"{CONFIGMAPS}/{name}").status_code == 404


def test_garbage_answers_are_forgiven_under_ignore(api, webhook, certs):
    hooks = [hook(f"g{i}.example.com", webhook.url + route, certs["ca_bundle"], failurePolicy="Ignore")
             for i, (route, _) in enumerate(GARBAGE)]
    with validating(api, *hooks):
        assert api.post(CONFIGMAPS, json=configmap("forgiven")).status_code == 201


def test_a_certificate_from_another_ca_is_refused(api, webhook, tmp_path):
    other = make_certificates(tmp_path, ca_name="another CA")
    with validating(api, hook("tls.example.com", webhook.url + "/deny", other["ca_bundle"])):
        refused = api.post(CONFIGMAPS, json=configmap("tls"))
    assert refused.status_code == 500
    assert refused.json()["message"].endswith(
        f'Post "{webhook.url}/deny?timeout=10s": tls: failed to verify certificate: x509: certificate signed by '
        "unknown authority")


def test_side_effects_other_than_none_are_refused_by_v1_validation(api, webhook, certs):
    refused = api.post(f"{ADMISSION}/validatingwebhookconfigurations", json=webhook_configuration(
        "ValidatingWebhookConfiguration", "effects",
        [hook("effects.example.com", webhook.url + "/allow", certs["ca_bundle"], sideEffects="Some")]))
    assert refused.status_code == 422
    assert refused.json()["message"] == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "effects" is invalid: webhooks[0].sideEffects: '
        'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"')


def test_dry_run_is_refused_for_a_stored_webhook_with_side_effects(cluster, api, webhook, certs):
    # v1 refuses sideEffects Some/Unknown; such configurations come from older API versions:
    # stored as they would have been, underneath validation.
    old = webhook_configuration("ValidatingWebhookConfiguration", "effects", [
        hook("effects.example.com", webhook.url + "/allow", certs["ca_bundle"], sideEffects="Some")])
    key = "/registry/admissionregistration.k8s.io/validatingwebhookconfigurations/effects"
    cluster.api.store.create(key, json.dumps(old).encode())
    try:
        refused = api.post(CONFIGMAPS + "?dryRun=All", json=configmap("dry"))
        assert refused.status_code == 400
        assert refused.json()["message"] == 'admission webhook "effects.example.com" does not support dry run'
        assert refused.json()["reason"] == "BadRequest"
        assert api.post(CONFIGMAPS, json=configmap("wet")).status_code == 201
    finally:
        assert api.delete(f"{ADMISSION}/validatingwebhookconfigurations/effects").status_code == 200


def test_dry_run_reaches_webhooks_without_side_effects(api, webhook, certs):
    with mutating(api, hook("label.example.com", webhook.url + "/label", certs["ca_bundle"],
                            sideEffects="NoneOnDryRun")):
        answer_ = api.post(CONFIGMAPS + "?dryRun=All", json=configmap("dry-labelled"))
    assert answer_.status_code == 201 and answer_.json()["metadata"]["labels"] == {"mutated": "yes"}
    request = webhook.reviews("/label")[-1]["request"]
    assert request["dryRun"] is True and request["options"]["dryRun"] == ["All"]
    assert api.get(f"{CONFIGMAPS}/dry-labelled").status_code == 404


def test_object_and_namespace_selectors(api, webhook, certs):
    assert api.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "guarded", "labels": {"guard": "on"}}}).status_code == 201
    by_object = hook("objsel.example.com", webhook.url + "/deny", certs["ca_bundle"],
                     objectSelector={"matchLabels": {"checked": "yes"}})
    with validating(api, by_object):
        assert api.post(CONFIGMAPS, json=configmap("bad-unchecked")).status_code == 201
        assert api.post(CONFIGMAPS, json=configmap("bad-checked", checked="yes")).status_code == 403
    by_namespace = hook("nssel.example.com", webhook.url + "/deny", certs["ca_bundle"],
                        namespaceSelector={"matchExpressions": [{"key": "guard", "operator": "In",
                                                                 "values": ["on"]}]})
    with validating(api, by_namespace):
        assert api.post(CONFIGMAPS, json=configmap("bad-default")).status_code == 201
        refused = api.post("/api/v1/namespaces/guarded/configmaps", json=configmap("bad-guarded"))
        assert refused.status_code == 403


def test_rules_match_operations_resources_and_subresources(api, webhook, certs):
    create_only = hook("create.example.com", webhook.url + "/deny", certs["ca_bundle"], operations=("CREATE",))
    api.post(CONFIGMAPS, json=configmap("bad-before"))
    with validating(api, create_only):
        assert api.put(f"{CONFIGMAPS}/bad-before", json=configmap("bad-before", x="y")).status_code == 200
    secrets_only = hook("secrets.example.com", webhook.url + "/deny", certs["ca_bundle"], resources=("secrets",))
    with validating(api, secrets_only):
        assert api.post(CONFIGMAPS, json=configmap("bad-cm")).status_code == 201
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad-pod"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    assert api.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
    status = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad-pod"}, "status": {"phase": "Running"}}
    main_only = hook("pods.example.com", webhook.url + "/deny", certs["ca_bundle"], resources=("pods",),
                     operations=("*",))
    with validating(api, main_only):
        path = "/api/v1/namespaces/default/pods/bad-pod/status"
        assert api.patch(path, json=status, headers={"content-type": "application/merge-patch+json"}
                         ).status_code == 200
    with_status = hook("podstatus.example.com", webhook.url + "/deny", certs["ca_bundle"],
                       resources=("pods/status",), operations=("*",))
    with validating(api, with_status):
        refused = api.patch(path, json=status, headers={"content-type": "application/merge-patch+json"})
        assert refused.status_code == 403
    assert webhook.reviews("/deny")[-1]["request"]["subResource"] == "status"


def test_webhook_configurations_are_never_sent_to_webhooks(api, webhook, certs):
    everything = hook("all.example.com", webhook.url + "/deny-plain", certs["ca_bundle"],
                      operations=("*",))
    everything["rules"] = [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]}]
    with validating(api, everything):
        refused = api.post(CONFIGMAPS, json=configmap("anything"))
        assert refused.status_code == 400
    # leaving the block deleted the configuration although it refuses every request


def test_service_reference_resolved_through_endpoints(api, webhook, certs):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks"},
               "spec": {"ports": [{"name": "https", "port": 443, "targetPort": webhook.port}]}}
    endpoints = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "hooks"},
                 "subsets": [{"addresses": [{"ip": "127.0.0.1"}],
                              "ports": [{"name": "https", "port": webhook.port}]}]}
    assert api.post("/api/v1/namespaces/default/services", json=service).status_code == 201
    assert api.post("/api/v1/namespaces/default/endpoints", json=endpoints).status_code == 201
    by_service = hook("svc.example.com", "", certs["ca_bundle"])
    by_service["clientConfig"] = {"service": {"namespace": "default", "name": "hooks", "path": "/deny"},
                                  "caBundle": certs["ca_bundle"]}
    missing = hook("nosvc.example.com", "", certs["ca_bundle"])
    missing["clientConfig"] = {"service": {"namespace": "default", "name": "absent", "path": "/deny"},
                               "caBundle": certs["ca_bundle"]}
    with validating(api, by_service):
        refused = api.post(CONFIGMAPS, json=configmap("bad-via-service"))
        assert refused.status_code == 403
        assert refused.json()["message"].startswith('admission webhook "svc.example.com" denied the request')
    with validating(api, missing):
        failed = api.post(CONFIGMAPS, json=configmap("via-missing"))
    assert failed.status_code == 500
    assert failed.json()["message"] == ('Internal error occurred: failed calling webhook "nosvc.example.com": '
                                        'failed to call webhook: service "absent" not found')


def test_stored_configurations_carry_the_api_defaults(api, webhook, certs):
    by_service = hook("defaults.example.com", "", certs["ca_bundle"])
    by_service["clientConfig"] = {"service": {"namespace": "default", "name": "hooks"}}
    with mutating(api, by_service) as created:
        stored = created["webhooks"][0]
    assert {k: stored[k] for k in ("failurePolicy", "matchPolicy", "namespaceSelector", "objectSelector",
                                   "timeoutSeconds", "reinvocationPolicy")} == {
        "failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
        "timeoutSeconds": 10, "reinvocationPolicy": "Never"}
    assert stored["rules"][0]["scope"] == "*"
    assert stored["clientConfig"]["service"]["port"] == 443
    assert list(stored) == ["name", "clientConfig", "rules", "failurePolicy", "matchPolicy", "namespaceSelector",
                            "objectSelector", "sideEffects", "timeoutSeconds", "admissionReviewVersions",
                            "reinvocationPolicy"]  # Go's field order


def test_delete_reaches_validating_webhooks_with_the_old_object(api, webhook, certs):
    assert api.post(CONFIGMAPS, json=configmap("bad-keep")).status_code == 201
    with validating(api, hook("keep.example.com", webhook.url + "/deny-old", certs["ca_bundle"],
                              operations=("DELETE",))):
        refused = api.delete(f"{CONFIGMAPS}/bad-keep")
        assert refused.status_code == 403
        assert refused.json()["message"] == 'admission webhook "keep.example.com" denied the request: bad-keep stays'
        assert api.get(f"{CONFIGMAPS}/bad-keep").status_code == 200
        request = webhook.reviews("/deny-old")[-1]["request"]
        assert request["operation"] == "DELETE" and request["object"] is None
        assert request["oldObject"]["metadata"]["name"] == "bad-keep"
        assert request["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    assert api.delete(f"{CONFIGMAPS}/bad-keep").status_code == 200


def test_a_mutating_webhook_may_not_patch_a_delete(api, webhook, certs):
    assert api.post(CONFIGMAPS, json=configmap("undeletable")).status_code == 201
    with mutating(api, hook("label.example.com", webhook.url + "/label", certs["ca_bundle"],
                            operations=("DELETE",))):
        refused = api.delete(f"{CONFIGMAPS}/undeletable")
    assert refused.status_code == 500
    assert refused.json()["message"] == ('Internal error occurred: admission webhook "label.example.com" attempted '
                                         "to modify the object, which is not supported for this operation")
    assert webhook.reviews("/label")[-1]["request"]["oldObject"] is None


INVALID = [
    ({"name": "short.name"}, 'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three '
                             "segments separated by dots"),
    ({"sideEffects": None}, "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"),
    ({"timeoutSeconds": 31}, "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and "
                             "30 seconds"),
    ({"admissionReviewVersions": ["v2"]}, 'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must '
                                          "include at least one of v1, v1beta1, v1alpha1"),
    ({"clientConfig": {"url": "http://127.0.0.1/x?a=b"}},
     'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: '
     'https://host[/path], webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted '
     "in the URL"),
    ({"clientConfig": {}}, "webhooks[0].clientConfig: Required value: exactly one of url or service is required"),
    ({"failurePolicy": "Sometimes"}, 'webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: '
                                     '"Fail", "Ignore"'),
    ({"rules": [{"operations": ["CREATE", "*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["*", "pods"]}]},
     'webhooks[0].rules[0].operations: Invalid value: []string{"CREATE", "*"}: if \'*\' is present, must not specify '
     'other operations, webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, '
     "must not specify other resources without subresources"),
]


@pytest.mark.parametrize("change,message", INVALID, ids=[str(i) for i in range(len(INVALID))])
def test_invalid_configurations_are_refused_with_kube_apiserver_messages(api, certs, change, message):
    entry = dict(hook("ok.example.com", "https://127.0.0.1:1/x", certs["ca_bundle"]), **change)
    entry = {k: v for k, v in entry.items() if v is not None}
    refused = api.post(f"{ADMISSION}/validatingwebhookconfigurations", json=webhook_configuration(
        "ValidatingWebhookConfiguration", "invalid", [entry]))
    assert refused.status_code == 422
    prefix = 'ValidatingWebhookConfiguration.admissionregistration.k8s.io "invalid" is invalid: '
    if message.count(", webhooks[") or message.count(", webhooks"):
        assert refused.json()["message"] == prefix + "[" + message + "]"
    else:
        assert refused.json()["message"] == prefix + message


def answer_hpa(review: dict):
    return json_patch(review, [{"op": "replace", "path": "/spec/maxReplicas", "value": 7}])


HPA = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "scaler"},
       "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": 3,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                    "type": "Utilization", "averageUtilization": 50}}}]}}


@pytest.mark.parametrize("policy", ["Equivalent", "Exact"])
def test_match_policy_equivalent_presents_the_object_in_the_webhooks_version(api, webhook, certs, policy):
    entry = hook("hpa.example.com", webhook.url + "/hpa-v1", certs["ca_bundle"], matchPolicy=policy)
    entry["rules"] = [{"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
                       "resources": ["horizontalpodautoscalers"]}]
    path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
    before = len(webhook.reviews("/hpa-v1"))
    with mutating(api, entry):
        created = api.post(path, json=HPA)
    assert created.status_code == 201, created.text
    api.delete(f"{path}/scaler")
    calls = webhook.reviews("/hpa-v1")[before:]
    if policy == "Exact":
        assert calls == [] and created.json()["spec"]["maxReplicas"] == 3
        return
    request = calls[0]["request"]
    assert request["kind"] == {"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"}
    assert request["requestKind"]["version"] == "v2"
    assert request["object"]["apiVersion"] == "autoscaling/v1"
    assert request["object"]["spec"]["targetCPUUtilizationPercentage"] == 50
    assert created.json()["spec"]["maxReplicas"] == 7  # the v1 patch, converted back
    assert created.json()["spec"]["metrics"] == HPA["spec"]["metrics"]


def test_a_patch_that_does_not_apply_is_an_internal_error_whatever_the_policy(api, webhook, certs):
    with mutating(api, hook("badpatch.example.com", webhook.url + "/bad-patch", certs["ca_bundle"],
                            failurePolicy="Ignore")):
        refused = api.post(CONFIGMAPS, json=configmap("unpatchable"))
    assert refused.status_code == 500
    assert refused.json()["message"] == ("Internal error occurred: error in remove for path: '/nope': Unable to remove "
                                         "nonexistent key: nope: missing value")
    assert api.get(f"{CONFIGMAPS}/unpatchable").status_code == 404


def service_hook(name: str, service: str, certs) -> dict:
    entry = hook(name, "", certs["ca_bundle"])
    entry["clientConfig"] = {"service": {"namespace": "default", "name": service, "path": "/deny"},
                             "caBundle": certs["ca_bundle"]}
    return entry


def test_service_reference_resolved_through_endpoint_slices_and_external_names(api, webhook, certs):
    sliced = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks-slice"},
              "spec": {"ports": [{"port": 8443, "targetPort": webhook.port}]}}
    endpoint_slice = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                      "metadata": {"name": "hooks-slice-1", "labels": {"kubernetes.io/service-name": "hooks-slice"}},
                      "addressType": "IPv4", "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}],
                      "ports": [{"port": webhook.port}]}
    external = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hooks-ext"},
                "spec": {"type": "ExternalName", "externalName": "localhost"}}
    assert api.post("/api/v1/namespaces/default/services", json=sliced).status_code == 201
    assert api.post("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", json=endpoint_slice
                    ).status_code == 201
    assert api.post("/api/v1/namespaces/default/services", json=external).status_code == 201
    by_slice = service_hook("slice.example.com", "hooks-slice", certs)
    by_slice["clientConfig"]["service"]["port"] = 8443
    with validating(api, by_slice):
        refused = api.post(CONFIGMAPS, json=configmap("bad-via-slice"))
    assert refused.status_code == 403, refused.text
    by_name = service_hook("ext.example.com", "hooks-ext", certs)
    by_name["clientConfig"]["service"]["port"] = webhook.port
    with validating(api, by_name):
        refused = api.post(CONFIGMAPS, json=configmap("bad-via-external-name"))
    assert refused.status_code == 403, refused.text
    assert refused.json()["message"].startswith('admission webhook "ext.example.com" denied the request')


def test_a_webhook_that_trickles_its_answer_is_cut_off_at_its_timeout(api, webhook, certs):
    with validating(api, hook("trickle.example.com", webhook.url + "/trickle", certs["ca_bundle"], timeoutSeconds=1)):
        refused = api.post(CONFIGMAPS, json=configmap("trickled"))
    assert refused.status_code == 500
    assert refused.json()["message"].endswith(f'Post "{webhook.url}/trickle?timeout=1s": context deadline exceeded')


@pytest.mark.parametrize("route", ["/slow", "/trickle"])
def test_a_call_cut_off_is_never_closed_under_its_read(webhook, certs, route, monkeypatch):
    """The call cut off at its deadline may be inside a read of its socket. Closed from the
    waiting thread, the descriptor went to the next connection opened (the next webhook call's),
    whose TLS handshake that read then took a part of: "EOF", "bad record mac" under load. The
    connection is shut down instead (a trickling answer would never end by itself) and the client
    closed once no thread is inside it."""
    import threading

    import httpx

    from kubelite.server.webhooks import caller

    ours: set[int] = set()  # the client of this test's call (other tests' calls may still be ending)
    inside: set[int] = set()  # the threads inside a call of it
    closes: list[bool] = []  # for each close of it: whether another thread was inside a call then
    closed = threading.Event()
    post, close = httpx.Client.post, httpx.Client.close

    def tracked_post(client, *args, **kwargs):
        if b'"cut-off"' not in kwargs.get("content", b""):
            return post(client, *args, **kwargs)
        ours.add(id(client))
        inside.add(threading.get_ident())
        try:
            return post(client, *args, **kwargs)
        finally:
            inside.discard(threading.get_ident())

    def tracked_close(client):
        if id(client) in ours:
            closes.append(bool(inside - {threading.get_ident()}))
            closed.set()
        close(client)

    monkeypatch.setattr(httpx.Client, "post", tracked_post)
    monkeypatch.setattr(httpx.Client, "close", tracked_close)
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "cut-off"}}
    with pytest.raises(caller.CallFailed, match="context deadline exceeded"):
        caller.post(caller.Target(webhook.url + route, webhook.url + route), certs["ca_bundle"], review, 1)
    assert closed.wait(20)  # the trickle too: shut down, its read ended
    assert closes == [False]


def test_validating_webhooks_are_called_together(api, webhook, certs):
    # Two webhooks that each answer only once both have been asked: called one after the other,
    # the first would wait for the second until its timeout.
    webhook.barrier = __import__("threading").Barrier(2, timeout=20)
    hooks = [hook(f"together{i}.example.com", webhook.url + "/together", certs["ca_bundle"], timeoutSeconds=25)
             for i in range(2)]
    with validating(api, *hooks):
        created = api.post(CONFIGMAPS, json=configmap("together"))
    assert created.status_code == 201, created.text


def test_what_a_patch_adds_goes_through_the_registry_strategy(api, webhook, certs):
    """A patched object is prepared as any: a Secret's stringData is folded into data, and a
    Deployment's status written by a webhook on update is not kept."""
    entry = hook("strategy.example.com", webhook.url + "/strategy", certs["ca_bundle"], resources=("secrets",))
    deploy = hook("status.example.com", webhook.url + "/strategy", certs["ca_bundle"])
    deploy["rules"] = [{"operations": ["UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                        "resources": ["deployments"]}]
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "strategy"},
                  "spec": {"selector": {"matchLabels": {"a": "b"}},
                           "template": {"metadata": {"labels": {"a": "b"}},
                                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    deployments = "/apis/apps/v1/namespaces/default/deployments"
    assert api.post(deployments, json=deployment).status_code == 201
    with mutating(api, entry, deploy):
        secret = api.post("/api/v1/namespaces/default/secrets", json={
            "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "strategy"}})
        updated = api.put(f"{deployments}/strategy", json=dict(deployment, metadata={
            "name": "strategy", "labels": {"x": "y"}}))
    assert secret.status_code == 201, secret.text
    assert secret.json()["data"] == {"added": "Ynktd2ViaG9vaw=="} and "stringData" not in secret.json()
    assert updated.status_code == 200, updated.text
    assert updated.json()["status"] == {} and updated.json()["spec"]["replicas"] == 3
    assert updated.json()["metadata"]["generation"] == 2


def test_a_generated_name_is_not_the_requests_name(api, webhook, certs):
    with mutating(api, hook("label.example.com", webhook.url + "/label", certs["ca_bundle"])), \
            validating(api, hook("deny.example.com", webhook.url + "/deny", certs["ca_bundle"])):
        created = api.post(CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap",
                                             "metadata": {"generateName": "gen-"}})
    assert created.status_code == 201, created.text
    name = created.json()["metadata"]["name"]
    assert name.startswith("gen-") and created.json()["metadata"]["labels"] == {"mutated": "yes"}
    mutated = webhook.reviews("/label")[-1]["request"]
    assert "name" not in mutated and "name" not in mutated["object"]["metadata"]
    assert mutated["object"]["metadata"]["generateName"] == "gen-"
    validated = webhook.reviews("/deny")[-1]["request"]
    assert "name" not in validated and validated["object"]["metadata"]["name"] == name
