"""CRD `x-kubernetes-validations` rules evaluated on custom resources.

The rules are the kubernetes.io documentation's ("Extend the Kubernetes API with
CustomResourceDefinitions", Validation rules: replicas between min and max, immutability with
oldSelf, messageExpression, reason and fieldPath); the texts are apiextensions-apiserver 1.32's
(pkg/apiserver/schema/cel/validation.go: "failed rule: ...", "... evaluating rule: ...",
field.Invalid with the schema type as the value).
"""
from __future__ import annotations

import pytest

from kubelite.server.cluster import Cluster

CRONTABS = "/apis/stable.example.com/v1/namespaces/default/crontabs"

SPEC_SCHEMA = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.minReplicas <= self.replicas", "message": "replicas should be greater than or equal to minReplicas."},
        {"rule": "self.replicas <= self.maxReplicas", "message": "replicas should be smaller than or equal to maxReplicas."},
        {"rule": "!has(self.limit) || self.x <= self.limit",
         "messageExpression": "'x exceeded max limit of ' + string(self.limit)"},
        {"rule": "!has(self.cap) || self.x <= self.cap", "fieldPath": ".x", "reason": "FieldValueForbidden"},
        {"rule": "!has(self.memory) || quantity(self.memory).isLessThan(quantity('1Gi'))",
         "message": "memory must be below 1Gi", "fieldPath": ".memory"},
    ],
    "properties": {
        "minReplicas": {"type": "integer"}, "replicas": {"type": "integer"}, "maxReplicas": {"type": "integer"},
        "x": {"type": "integer"}, "limit": {"type": "integer"}, "cap": {"type": "integer"},
        "memory": {"type": "string"}, "note": {"type": "string"},
        "immutable": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self == oldSelf", "message": "Value is immutable"}]},
        "image": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self.startsWith('registry.example.com/')"}]},
        "hosts": {"type": "array", "x-kubernetes-list-type": "set",
                  "items": {"type": "string", "x-kubernetes-validations": [
                      {"rule": "isURL('https://' + self) && url('https://' + self).getHostname() == self",
                       "message": "must be a host name"}]}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                            "x-kubernetes-validations": [
                                {"rule": "self.port == oldSelf.port", "message": "a named port keeps its number"}]}},
        "labels": {"type": "object", "additionalProperties": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self.size() <= 5", "reason": "FieldValueInvalid"}]}},
        "broken": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                   "x-kubernetes-validations": [{"rule": "self.missing == 1"}]},
        "typed": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                  "x-kubernetes-validations": [{"rule": "self.a + 1 == 2", "message": "a must be one"}]},
    },
}

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs.stable.example.com"},
    "spec": {"group": "stable.example.com", "scope": "Namespaced",
             "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object",
                 "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('my-')",
                                               "message": "names start with my-"}],
                 "properties": {"spec": SPEC_SCHEMA}}}}]}}


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", controllers=False) as cluster, cluster.http_client() as client:
        created = client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD)
        assert created.status_code == 201, created.text
        yield client


def crontab(name: str, **spec) -> dict:
    body = {"minReplicas": 1, "replicas": 2, "maxReplicas": 3}
    body.update(spec)
    return {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": name}, "spec": body}


def invalid(api, obj: dict, method: str = "post") -> dict:
    if method == "post":
        answer = api.post(CRONTABS, json=obj)
    else:
        answer = api.put(f"{CRONTABS}/{obj['metadata']['name']}", json=obj)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["reason"] == "Invalid" and body["details"]["kind"] == "CronTab"
    return body


def test_the_documentation_replicas_rules(api):
    body = invalid(api, crontab("my-new-cron-object", replicas=5))
    assert body["message"] == ('CronTab.stable.example.com "my-new-cron-object" is invalid: spec: Invalid value: '
                               '"object": replicas should be smaller than or equal to maxReplicas.')
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec", "message":
                                          'Invalid value: "object": replicas should be smaller than or equal to '
                                          "maxReplicas."}]
    body = invalid(api, crontab("my-new-cron-object", minReplicas=9, replicas=5))
    assert body["message"] == (
        'CronTab.stable.example.com "my-new-cron-object" is invalid: [spec: Invalid value: "object": replicas should '
        'be greater than or equal to minReplicas., spec: Invalid value: "object": replicas should be smaller than or '
        "equal to maxReplicas.]")
    assert api.post(CRONTABS, json=crontab("my-new-cron-object")).status_code == 201


def test_rules_at_the_root_see_the_name(api):
    body = invalid(api, crontab("other-name"))
    assert body["message"] == ('CronTab.stable.example.com "other-name" is invalid: <nil>: Invalid value: "object": '
                               "names start with my-")


def test_message_expression_reason_and_field_path(api):
    body = invalid(api, crontab("my-limited", x=5, limit=3))
    assert body["details"]["causes"][0]["message"] == 'Invalid value: "object": x exceeded max limit of 3'
    body = invalid(api, crontab("my-capped", x=5, cap=3))
    assert body["details"]["causes"] == [{"reason": "FieldValueForbidden", "field": "spec.x",
                                          "message": "Forbidden: failed rule: !has(self.cap) || self.x <= self.cap"}]
    body = invalid(api, crontab("my-memory", memory="2Gi"))
    assert body["message"].endswith('is invalid: spec.memory: Invalid value: "object": memory must be below 1Gi')
    assert api.post(CRONTABS, json=crontab("my-memory", memory="512Mi", x=1, limit=3, cap=3)).status_code == 201


def test_rules_inside_properties_items_and_maps(api):
    body = invalid(api, crontab("my-image", image="docker.io/nginx"))
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.image", "message":
                                          "Invalid value: \"string\": failed rule: "
                                          "self.startsWith('registry.example.com/')"}]
    body = invalid(api, crontab("my-hosts", hosts=["example.com", "a b/c"]))
    assert [c["field"] for c in body["details"]["causes"]] == ["spec.hosts[1]"]
    assert body["details"]["causes"][0]["message"] == 'Invalid value: "string": must be a host name'
    body = invalid(api, crontab("my-labels", labels={"ok": "short", "bad": "too long"}))
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.labels[bad]",
                                          "message": 'Invalid value: "string": failed rule: self.size() <= 5'}]


def test_evaluation_errors_name_the_rule(api):
    body = invalid(api, crontab("my-broken", broken={"other": 1}))
    assert body["details"]["causes"][0] == {
        "reason": "FieldValueInvalid", "field": "spec.broken",
        "message": 'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1'}
    body = invalid(api, crontab("my-typed", typed={"a": "one"}))
    assert body["details"]["causes"][0]["message"] == (
        "Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function "
        "or macro signature for rule: a must be one")


def test_transition_rules_compare_with_the_old_value_on_update(api):
    created = api.post(CRONTABS, json=crontab("my-immutable", immutable="first",
                                              ports=[{"name": "http", "port": 80}]))
    assert created.status_code == 201, created.text  # no oldSelf on create
    current = created.json()
    current["spec"]["immutable"] = "second"
    body = invalid(api, current, method="put")
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.immutable",
                                          "message": 'Invalid value: "string": Value is immutable'}]
    current["spec"]["immutable"] = "first"
    current["spec"]["ports"] = [{"name": "https", "port": 443}, {"name": "http", "port": 8080}]
    body = invalid(api, current, method="put")  # the list item keyed "http" is compared; "https" is new
    assert [c["field"] for c in body["details"]["causes"]] == ["spec.ports[1]"]
    current["spec"]["ports"] = [{"name": "https", "port": 443}, {"name": "http", "port": 80}]
    assert api.put(f"{CRONTABS}/my-immutable", json=current).status_code == 200


def test_an_unchanged_invalid_value_is_ratcheted(api):
    """A rule added after the object was stored: updating other fields still works (validation
    ratcheting, on by default in 1.32); changing the field to another invalid value is refused."""
    created = api.post(CRONTABS, json=crontab("my-ratchet", note="old-style"))
    assert created.status_code == 201
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com"
    crd = api.get(path).json()
    note = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["note"]
    note["x-kubernetes-validations"] = [{"rule": "self.startsWith('new')", "message": "notes are new-style"}]
    assert api.put(path, json=crd).status_code == 200
    current = api.get(f"{CRONTABS}/my-ratchet").json()
    current["spec"]["replicas"] = 3
    updated = api.put(f"{CRONTABS}/my-ratchet", json=current)
    assert updated.status_code == 200, updated.text
    current = updated.json()
    current["spec"]["note"] = "old-again"
    body = invalid(api, current, method="put")
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.note",
                                          "message": 'Invalid value: "string": notes are new-style'}]
    assert invalid(api, crontab("my-new-note", note="old"))["details"]["causes"][0]["field"] == "spec.note"


def test_schema_errors_leave_rules_unchecked(api):
    body = invalid(api, crontab("my-typo", replicas="two"))
    assert body["details"]["causes"][-1] == {
        "reason": "FieldValueInvalid", "field": "<nil>",
        "message": 'Invalid value: "null": some validation rules were not checked because the object was invalid; '
                   "correct the existing errors to complete validation"}
