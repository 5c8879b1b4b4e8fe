"""Client mistakes and hostile requests (issue 19) get kube-apiserver's answer, never a 500.

Expected answers come from the reference recordings (tests/data/reference/apiserver/errors)
where the same kind of mistake was recorded, and otherwise from the Go source of
kube-apiserver 1.32 (k8s.io/apiserver handlers/patch.go, encoding/json's scanner, strconv).
"""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"
CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
SMP = "application/strategic-merge-patch+json"


def recorded(name: str) -> dict:
    return json.loads((REF / f"{name}.body.json").read_text())


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            assert client.post(CMS, json=configmap("existing")).status_code == 201
            assert client.post(DEPLOYMENTS, json=DEPLOYMENT).status_code == 201
            yield client


def configmap(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **extra}


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def status(response) -> dict:
    assert response.headers["content-type"] == "application/json", response.text
    body = response.json()
    assert body["kind"] == "Status", body
    return body


def bad_request(message: str) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def unrecognized(detail: str, summary: str) -> dict:
    return bad_request(f"the object provided is unrecognized (must be of type ConfigMap): {detail} ({summary})")


def post(api, body: bytes, content_type: str = "application/json"):
    return api.post(CMS, content=body, headers={"content-type": content_type})


# -- query parameters: strconv.ParseInt's words, as recorded for limit=abc -------------------

def test_recorded_parse_error_shape():
    assert recorded("badrequest-invalid-limit") == bad_request('strconv.ParseInt: parsing "abc": invalid syntax')


@pytest.mark.parametrize("query,text,problem", [
    ("limit=99999999999999999999999", "99999999999999999999999", "value out of range"),
    ("limit=1_0", "1_0", "invalid syntax"),
    ("limit=%201", " 1", "invalid syntax"),
])
def test_list_limit_outside_int64(api, query, text, problem):
    response = api.get(f"{CMS}?{query}")
    assert response.status_code == 400
    assert status(response) == bad_request(f'strconv.ParseInt: parsing "{text}": {problem}')


def test_grace_period_not_a_number(api):
    response = api.delete(f"{CMS}/existing?gracePeriodSeconds=abc")
    assert response.status_code == 400
    assert status(response) == bad_request('strconv.ParseInt: parsing "abc": invalid syntax')
    assert api.get(f"{CMS}/existing").status_code == 200


def test_delete_options_body_of_the_wrong_type(api):
    response = api.request("DELETE", f"{CMS}/existing", content=b'{"gracePeriodSeconds":"soon"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert status(response)["message"] == (
        "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64")


# -- JSON bodies: encoding/json's syntax errors and kube's summary of the body ----------------

def test_recorded_syntax_error_shape():
    # a body that is not an object is summarised in hex, a truncated object as text
    assert recorded("badrequest-malformed-json-2") == unrecognized(
        "couldn't get version/kind; json parse error: invalid character 'h' in literal true (expecting 'r')",
        "74686973206973206e6f74206a736f6e")


@pytest.mark.parametrize("body,problem", [
    (b"abc", "invalid character 'a' looking for beginning of value"),
    (b"this is not json", "invalid character 'h' in literal true (expecting 'r')"),
    (b'{"a":NaN}', "invalid character 'N' looking for beginning of value"),
    (b'{"a":Infinity}', "invalid character 'I' looking for beginning of value"),
    (b'{"a":1} x', "invalid character 'x' after top-level value"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b'{"a":[1,]}', "invalid character ']' looking for beginning of value"),
    (b'{"a":"\x01"}', "invalid character '\\x01' in string literal"),
    (b'{"a":"\\q"}', "invalid character 'q' in string escape code"),
    (b'{"a":-}', "invalid character '}' in numeric literal"),
    (b'{"a":1.}', "invalid character '}' after decimal point in numeric literal"),
    (b'{"a":"x"', "unexpected end of JSON input"),
])
def test_json_syntax_errors_speak_go(api, body, problem):
    response = post(api, body)
    assert response.status_code == 400
    summary = body.decode() if body.startswith(b"{") else body.hex()
    assert status(response) == unrecognized(f"couldn't get version/kind; json parse error: {problem}", summary)


def test_lone_surrogate_and_invalid_utf8_become_replacement_characters(api):
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"text"},"data":{"a":"x\\ud800y","b":"\xff"}}'
    response = post(api, body)
    assert response.status_code == 201, response.text
    assert response.json()["data"] == {"a": "x\ufffdy", "b": "\ufffd"}
    assert api.get(f"{CMS}/text").json()["data"] == {"a": "x\ufffdy", "b": "\ufffd"}


def test_number_of_5000_digits(api):
    digits = "9" * 5000
    # in a field the kind does not have, Go skips it: created, with the unknown-field warning
    response = post(api, json.dumps(configmap("digits")).encode()[:-1] + f',"extra":{digits}}}'.encode())
    assert response.status_code == 201, response.text
    assert 'unknown field \\"extra\\"' in response.headers["warning"]
    # in a string field, Go's unmarshal error
    response = post(api, f'{{"kind":"ConfigMap","metadata":{{"name":"d2"}},"data":{{"a":{digits}}}}}'.encode())
    assert response.status_code == 400
    assert status(response)["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: '
                                           "cannot unmarshal number into Go struct field ConfigMap.data of type string")


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def test_ten_thousand_levels_are_accepted(api):
    # kube-apiserver's decoder takes 10,000 nested values (the object itself is the first)
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"extra":' + deep(9999) + b"}"
    response = post(api, body)
    assert response.status_code == 201, response.text[:300]
    assert 'unknown field \\"extra\\"' in response.headers["warning"]


def test_deeper_documents_are_a_syntax_error(api):
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deeper"},"extra":' + deep(10000) + b"}"
    response = post(api, body)
    assert response.status_code == 400
    assert status(response) == unrecognized(
        "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
        body[:30].decode() + " ...")


# -- YAML bodies: go-yaml's limits and errors --------------------------------------------------

BOMB = b"""apiVersion: v1
kind: ConfigMap
metadata: {name: bomb}
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


@pytest.mark.parametrize("body,problem", [
    (BOMB, "yaml: document contains excessive aliasing"),
    (b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: !!int x\n",
     "yaml: cannot decode !!str `x` as a !!int"),
    (b"apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: y\n  self: *m\n", "value contains itself"),
])
def test_yaml_bodies_refused_as_go_yaml_does(api, body, problem):
    response = post(api, body, "application/yaml")
    assert response.status_code == 400
    message = status(response)["message"]
    assert message.startswith("the object provided is unrecognized (must be of type ConfigMap): yaml: ")
    assert problem in message
    assert message.endswith(f"({body[:30].hex()} ...)")


def test_recorded_yaml_error_shape(api):
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata: ["
    assert status(post(api, body, "application/yaml")) == recorded("badrequest-malformed-yaml")


# -- names no object can have ----------------------------------------------------------------

def test_name_with_nul(api):
    response = api.post(CMS, json=configmap("a\u0000b"))
    assert response.status_code == 422
    assert status(response)["message"].startswith('ConfigMap "a\\x00b" is invalid: metadata.name: Invalid value')
    response = api.get(f"{CMS}/a%00b")
    assert response.status_code == 404
    assert status(response)["message"] == 'configmaps "a\\x00b" not found'
    response = api.post("/api/v1/namespaces/n%00s/configmaps", json=configmap("x"))
    assert response.status_code == 404
    assert status(response)["message"] == 'namespaces "n\\x00s" not found'


# -- patches: kube-apiserver's limits and its mapping of patch errors -------------------------

def test_json_patch_with_more_than_10000_operations(api):
    ops = [{"op": "test", "path": "/metadata/name", "value": "existing"}] * 10001
    response = api.patch(f"{CMS}/existing", content=json.dumps(ops), headers={"content-type": JSON_PATCH})
    assert response.status_code == 413
    assert status(response) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
        "reason": "RequestEntityTooLarge", "code": 413}


def test_json_patch_copies_are_bounded(api):
    # each copy doubles metadata: past 3 MiB copied, the library fails and the server answers
    # its generic 422, as for any failed JSON patch operation (recorded: a failed test op)
    ops = [{"op": "copy", "from": "/metadata", "path": f"/metadata/x{i}"} for i in range(23)]
    response = api.patch(f"{CMS}/existing", content=json.dumps(ops), headers={"content-type": JSON_PATCH})
    assert response.status_code == 422
    assert status(response) == recorded("patch-jsonpatch-test-fails")
    assert "x0" not in api.get(f"{CMS}/existing").json()["metadata"]


def test_json_patch_small_copies_still_work(api):
    ops = [{"op": "add", "path": "/data", "value": {}}, {"op": "copy", "from": "/metadata/name", "path": "/data/n"}]
    response = api.patch(f"{CMS}/existing", content=json.dumps(ops), headers={"content-type": JSON_PATCH})
    assert response.status_code == 200, response.text
    assert response.json()["data"] == {"n": "existing"}


def test_strategic_patch_retain_keys_not_a_list(api):
    # one of apimachinery's mergepatch sentinel errors, which kube-apiserver answers with 400
    patch = {"spec": {"$retainKeys": "notalist"}}
    response = api.patch(f"{DEPLOYMENTS}/web", content=json.dumps(patch), headers={"content-type": SMP})
    assert response.status_code == 400
    assert status(response) == bad_request("invalid patch format of retainKeys")


def test_recorded_unknown_directive_is_a_plain_500(api):
    # kube-apiserver itself answers this client mistake with a plain 500 (recorded)
    patch = {"spec": {"template": {"spec": {"containers": [{"$patch": "explode", "name": "c"}]}}}}
    response = api.patch(f"{DEPLOYMENTS}/web", content=json.dumps(patch), headers={"content-type": SMP})
    assert response.status_code == 500
    assert status(response) == {**recorded("patch-smp-bad-directive"),
                                "message": "unknown patch type: explode in map: map[$patch:explode name:c]"}


# Patches whose result kube-apiserver decodes into a Go type (found by the fuzz suite: each was
# a panic or a 500 with Python text). patch.go: the patched JSON is decoded into the endpoint's
# type (422 "patch: Invalid value" with encoding/json's words); null metadata is an empty
# ObjectMeta; the field manager's UpdateNoErrors drops managedFields it cannot compute, and
# validation then refuses the object.

def test_patch_leaving_metadata_null_keeps_the_object(api):
    response = api.patch(f"{CMS}/existing", content=b'[{"op":"add","path":"/metadata"}]',
                         headers={"content-type": JSON_PATCH})
    assert response.status_code == 200, response.text
    assert response.json()["metadata"]["name"] == "existing"


@pytest.mark.parametrize("content_type,body,problem", [
    (MERGE_PATCH, b'{"metadata": 226}', "json: cannot unmarshal number into Go struct field Scale.metadata of type "
                                        "v1.ObjectMeta"),
    (JSON_PATCH, b'[{"op":"copy","from":"/status","path":"/metadata/resourceVersion"}]',
     "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.resourceVersion of type string"),
    (SMP, b'{"metadata": 226}', "cannot restore struct from: int64"),
])
def test_scale_patch_of_the_wrong_type_is_invalid(api, content_type, body, problem):
    response = api.patch(f"{DEPLOYMENTS}/web/scale", content=body, headers={"content-type": content_type})
    assert response.status_code == 422, response.text
    got = status(response)
    assert got["reason"] == "Invalid" and got["message"].startswith(' "" is invalid: patch: Invalid value: ')
    assert got["message"].endswith(f": {problem}"), got["message"]


def test_patch_the_field_manager_cannot_read_is_refused_by_validation(api):
    move = b'[{"op":"move","from":"/status","path":"/spec/template/spec/containers/0"}]'
    response = api.patch(f"{DEPLOYMENTS}/web", content=move, headers={"content-type": JSON_PATCH})
    assert response.status_code == 422, response.text
    assert status(response)["message"].startswith('Deployment.apps "web" is invalid: ')


WIDGETS = "/apis/fuzz.example.com/v1/namespaces/default/widgets"


@pytest.fixture(scope="module")
def widget(api):
    import time

    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.fuzz.example.com"},
           "spec": {"group": "fuzz.example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                  "schema": {"openAPIV3Schema": {"type": "object",
                                                                 "x-kubernetes-preserve-unknown-fields": True}}}]}}
    assert api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
    deadline = time.monotonic() + 60
    while api.get(WIDGETS).status_code != 200:
        assert time.monotonic() < deadline, "the CRD was never served"
    body = {"apiVersion": "fuzz.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}}
    assert api.post(WIDGETS, json=body).status_code == 201
    return f"{WIDGETS}/w"


@pytest.mark.parametrize("subresource", ["", "/status"])
@pytest.mark.parametrize("content_type,body,problem", [
    (MERGE_PATCH, b'{"metadata": "x"}', "json: cannot unmarshal string into Go value of type v1.ObjectMeta"),
    (MERGE_PATCH, b'{"metadata": []}', "json: cannot unmarshal array into Go value of type v1.ObjectMeta"),
    (JSON_PATCH, b'[{"op":"replace","path":"/metadata/resourceVersion","value":{"a":null}}]',
     "json: cannot unmarshal object into Go struct field ObjectMeta.resourceVersion of type string"),
])
def test_custom_resource_metadata_decodes_as_object_meta(api, widget, subresource, content_type, body, problem):
    # apiextensions' schema coercion reads a custom resource's metadata into an ObjectMeta
    response = api.patch(widget + subresource, content=body, headers={"content-type": content_type})
    assert response.status_code == 422, response.text
    assert status(response)["message"].endswith(f": {problem}"), response.text


@pytest.mark.parametrize("body,problem", [
    (b"nope", "invalid character 'o' in literal null (expecting 'u')"),
    (b'{"data":', "unexpected end of JSON input"),
    (b'{"data":{"a":NaN}}', "invalid character 'N' looking for beginning of value"),
])
def test_patch_decode_errors(api, body, problem):
    response = api.patch(f"{CMS}/existing", content=body, headers={"content-type": MERGE_PATCH})
    assert response.status_code == 400
    assert status(response) == bad_request(f"error decoding patch: {problem}")


# -- a bug is a 500 without Python's words ----------------------------------------------------

def test_a_bug_answers_without_python_text(monkeypatch):
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        def broken(*args, **kwargs):
            raise KeyError("secret detail")

        monkeypatch.setattr(cluster.api, "get", broken)
        with cluster.http_client() as client:
            response = client.get(f"{CMS}/anything")
    assert response.status_code == 500
    assert response.text == "This request caused apiserver to panic. Look in the logs for details.\n"
    assert response.headers["content-type"] == "text/plain; charset=utf-8"


def test_a_request_running_too_long_ends_with_504(monkeypatch):
    import threading

    from kubelite.server import app as app_module

    monkeypatch.setattr(app_module, "REQUEST_TIMEOUT", 0.5)
    release = threading.Event()
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        def stuck(*args, **kwargs):
            release.wait(30)  # until the test has its answer
            return {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {}, "items": []}

        from kubelite.server.handlers import encodedlist

        monkeypatch.setattr(encodedlist, "respond", lambda *args: None)  # LISTs take the decoding path
        monkeypatch.setattr(cluster.api, "list", stuck)
        try:
            with cluster.http_client() as client:
                # (an in-process request does its storage work on the caller's thread, where it
                # cannot be cut short, unless it asks for a deadline: this one asks for the
                # server's; the served path is cut at --request-timeout, test_hardening_served)
                response = client.get(CMS, params={"timeout": "1m"})
                healthz = client.get("/healthz")
        finally:
            release.set()
    assert response.status_code == 504
    assert status(response) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Timeout: request did not complete within requested timeout - context deadline exceeded",
        "reason": "Timeout", "details": {}, "code": 504}
    assert healthz.text == "ok"


# -- the client's ?timeout= and serve --request-timeout (WithRequestDeadline) -----------------
# A LIST at a resourceVersion the store has not reached waits 3 s for it (the watch cache's
# wait): a request that runs long without stubbing anything.

FUTURE = "99999999999"
TIMED_OUT = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": "Timeout: request did not complete within requested timeout - context deadline exceeded",
             "reason": "Timeout", "details": {}, "code": 504}


def test_client_timeout_shorter_than_the_limit_ends_the_request_with_504(api):
    response = api.get(CMS, params={"resourceVersion": FUTURE, "timeout": "200ms"})
    assert response.status_code == 504
    assert status(response) == TIMED_OUT


def test_request_timeout_caps_the_client_timeout():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        cluster.app.request_timeout = 0.2  # serve --request-timeout=200ms
        with cluster.http_client() as client:
            response = client.get(CMS, params={"resourceVersion": FUTURE, "timeout": "1h"})
    assert response.status_code == 504
    assert status(response) == TIMED_OUT


@pytest.mark.parametrize("value,problem", [
    ("abc", 'time: invalid duration "abc"'),
    ("30", 'time: missing unit in duration "30"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
])
def test_bad_client_timeout_is_400(api, value, problem):
    response = api.get(CMS, params={"timeout": value})
    assert response.status_code == 400
    assert status(response) == bad_request(f"invalid timeout specified in the request URL - {problem}")


@pytest.mark.parametrize("value", ["0s", "-5s", "2h"])
def test_client_timeout_outside_the_range_means_the_limit(api, value):
    assert api.get(CMS, params={"timeout": value}).status_code == 200


def test_watches_do_not_read_the_timeout_parameter(api):
    # long-running requests skip WithRequestDeadline: no 400, the watch runs its timeoutSeconds
    with api.stream("GET", CMS, params={"watch": "1", "timeout": "abc", "timeoutSeconds": "1"}) as response:
        assert response.status_code == 200
        response.read()


def test_go_durations():
    from kubelite.server.gotime import parse_duration

    assert parse_duration("1h2m3.5s") == 3723.5
    assert parse_duration("-1.5ms") == -0.0015
    assert parse_duration("250\u00b5s") == 0.00025
    assert parse_duration("0") == 0.0
    for text in ("", "-", ".s", "1.5.5s", "2562048h"):
        with pytest.raises(ValueError, match="^time: (invalid duration|missing unit)"):
            parse_duration(text)


# -- metav1.Time: time.Parse(RFC3339)'s own errors (apimachinery meta/v1 time.go) --------------

@pytest.mark.parametrize("text,problem", [
    ("notatime", 'parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"'),
    ("2024-01-01", 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
    ("2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
    ("2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
    ("2024-01-01T00:00:00+0100",
     'parsing time "2024-01-01T00:00:00+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00"'),
    ("2024-01-01T00:00:00Zx", 'parsing time "2024-01-01T00:00:00Zx": extra text: "x"'),
])
def test_creation_timestamp_that_is_not_a_time(api, text, problem):
    response = api.post(CMS, json=configmap("when", metadata={"name": "when", "creationTimestamp": text}))
    assert response.status_code == 400
    assert status(response) == bad_request(f'ConfigMap in version "v1" cannot be handled as a ConfigMap: {problem}')


def test_creation_timestamp_in_rfc3339_is_accepted_and_replaced(api):
    body = configmap("stamped", metadata={"name": "stamped", "creationTimestamp": "2020-02-29T10:00:00.5+02:00"})
    response = api.post(CMS, json=body)
    assert response.status_code == 201, response.text
    assert response.json()["metadata"]["creationTimestamp"] != "2020-02-29T10:00:00.5+02:00"


# -- CustomResourceDefinitions: apiextensions' validation (validation.go, 1.32) ----------------

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def test_crd_without_names_versions_or_scope_is_invalid(api):
    response = api.post(CRDS, json={"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                                    "metadata": {"name": "widgets.example.com"}, "spec": {}})
    assert response.status_code == 422
    body = status(response)
    assert [(c["field"], c["reason"]) for c in body["details"]["causes"]] == [
        ("metadata.name", "FieldValueInvalid"), ("spec.group", "FieldValueRequired"),
        ("spec.scope", "FieldValueRequired"), ("spec.versions", "FieldValueInvalid"),
        ("spec.names.plural", "FieldValueRequired"), ("spec.names.singular", "FieldValueRequired"),
        ("spec.names.kind", "FieldValueRequired"), ("spec.names.listKind", "FieldValueRequired"),
        ("status.storedVersions", "FieldValueInvalid")]
    assert body["message"].startswith(
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: [metadata.name: Invalid '
        'value: "widgets.example.com": must be spec.names.plural+"."+spec.group, spec.group: Required value, '
        "spec.scope: Required value, spec.versions: Invalid value: "
        "[]apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage "
        "version, spec.names.plural: Required value")


def test_crd_with_bad_scope_and_no_schema(api):
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gadgets.example.com"},
           "spec": {"group": "example.com", "scope": "Global",
                    "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True}]}}
    response = api.post(CRDS, json=crd)
    assert response.status_code == 422
    assert [c["message"] for c in status(response)["details"]["causes"]] == [
        'Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
        "Required value: schemas are required"]


def test_valid_crd_is_created(api):
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gizmos.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gizmos", "kind": "Gizmo"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    assert api.post(CRDS, json=crd).status_code == 201
