"""Fuzzing the server's doors with bad input (issue 19): the body decoders, the patch engine
and the HTTP app. Nothing may escape as a Python exception, and the app never answers with
its panic text (a bug) nor with Python's words.

Bounded for CI; for a longer run by hand: KUBELITE_FUZZ_EXAMPLES=5000 pytest tests/server/test_hardening_fuzz.py
"""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.handlers import jsonbody

EXAMPLES = int(os.environ.get("KUBELITE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
PANIC = "This request caused apiserver to panic"
PYTHON_WORDS = ("Traceback", "Error:", "object has no attribute", "NoneType", "line 1 column", "Expecting ")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    """`data` with a few bytes replaced, inserted or cut: almost JSON, the decoders' hard case."""
    def mutate(draw_ops):
        out = bytearray(data)
        for kind, position, byte in draw_ops:
            at = position % (len(out) + 1)
            if kind == 0 and at < len(out):
                out[at] = byte
            elif kind == 1:
                out.insert(at, byte)
            else:
                del out[at:at + 1]
        return bytes(out)

    ops = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1 << 16), st.integers(0, 255)), min_size=1, max_size=4)
    return ops.map(mutate)


BODY = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fuzz", "labels": {"a": "b"}},
                   "data": {"k": "v"}}).encode()


# -- the JSON body decoder ---------------------------------------------------------------------

@FUZZ
@given(st.binary(max_size=200) | mutated(BODY))
def test_decoder_errors_are_json_body_errors(data):
    try:
        jsonbody.loads(data)
    except jsonbody.JSONBodyError as err:
        assert str(err).startswith(("invalid character", "unexpected end of JSON input")), str(err)


@FUZZ
@given(json_values)
def test_valid_json_is_read_back(value):
    data = json.dumps(value).encode()
    assert jsonbody.syntax_error(data) is None
    assert jsonbody.loads(data) == json.loads(data)


@FUZZ
@given(mutated(BODY))
def test_scanner_and_decoder_agree(data):
    problem = jsonbody.syntax_error(data)
    try:
        jsonbody.loads(data)
        accepted = True
    except jsonbody.JSONBodyError:
        accepted = False
    assert accepted == (problem is None), (data, problem)


# -- the patch engine ----------------------------------------------------------------------------

ops = st.lists(st.fixed_dictionaries({
    "op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bogus"]),
    "path": st.sampled_from(["/metadata", "/metadata/name", "/data", "/data/k", "/x/-", "/data/0", "", "/"]),
}, optional={"from": st.sampled_from(["/metadata", "/data", "/nope", ""]), "value": json_values}), max_size=6)


@FUZZ
@given(ops)
def test_json_patch_fails_only_with_patch_errors(operations):
    from kubelite.patch import PatchError, json_patch

    try:
        json_patch.apply(json.loads(BODY), operations, kubectl_compat=True, copy_limit=1 << 20)
    except PatchError:
        pass


@FUZZ
@given(st.dictionaries(st.sampled_from(["spec", "metadata", "$patch", "$retainKeys", "status"]),
                       json_values, max_size=3))
def test_strategic_patch_fails_only_with_patch_errors(patch):
    from kubelite.patch import PatchError, strategic

    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                  "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    try:
        strategic.apply(deployment, patch)
    except PatchError:
        pass


# -- the HTTP app ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            client.post(CMS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"}})
            client.post(DEPLOYMENTS, json={
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                    "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
            yield client


def assert_answered_as_a_server(response) -> None:
    text = response.text
    assert PANIC not in text, text
    assert not any(words in text for words in PYTHON_WORDS), text[:500]
    if response.status_code == 500:
        # kube-apiserver's own plain 500s (recorded): some strategic patch errors and a
        # resourceVersion that is not a number
        assert response.request.method == "PATCH" or "resourceVersion=" in str(response.request.url), text
        assert response.json().get("reason") is None, text


REQUESTS = st.sampled_from([
    ("POST", CMS, "application/json"),
    ("POST", CMS, "application/yaml"),
    ("PUT", CMS + "/target", "application/json"),
    ("PATCH", CMS + "/target", "application/merge-patch+json"),
    ("PATCH", CMS + "/target", "application/json-patch+json"),
    ("PATCH", DEPLOYMENTS + "/web", "application/strategic-merge-patch+json"),
    ("DELETE", CMS + "/nothing", "application/json"),
])


@FUZZ
@given(REQUESTS, st.binary(max_size=300) | mutated(BODY) | json_values.map(lambda v: json.dumps(v).encode()))
def test_app_answers_bad_bodies_as_kube_apiserver_would(api, request, body):
    method, path, content_type = request
    response = api.request(method, path, content=body, headers={"content-type": content_type})
    assert_answered_as_a_server(response)


QUERY_VALUES = st.text(max_size=30) | st.integers().map(str) | st.just("9" * 40)


@FUZZ
@given(st.sampled_from(["limit", "timeoutSeconds", "gracePeriodSeconds", "resourceVersion", "labelSelector",
                        "fieldSelector", "continue", "dryRun", "fieldValidation", "propagationPolicy"]),
       QUERY_VALUES, st.sampled_from(["GET", "DELETE"]))
def test_app_answers_bad_query_parameters(api, name, value, method):
    path = CMS if method == "GET" else CMS + "/nothing"
    response = api.request(method, path, params={name: value})
    assert_answered_as_a_server(response)


# -- the kustomize loader -------------------------------------------------------------------------

KUSTOMIZATION_FIELDS = ["resources", "namePrefix", "nameSuffix", "namespace", "commonLabels", "labels",
                        "commonAnnotations", "images", "replicas", "patches", "configMapGenerator",
                        "secretGenerator", "generatorOptions", "apiVersion", "kind", "helmCharts", "sortOptions"]


@FUZZ
@given(st.dictionaries(st.sampled_from(KUSTOMIZATION_FIELDS), json_values, max_size=4),
       st.sampled_from(["yaml", "json"]))
def test_kustomize_fails_only_with_kustomize_errors(kustomization, form):
    import tempfile

    import yaml

    from kubelite.kustomize import KustomizeError, build, render

    with tempfile.TemporaryDirectory() as folder:
        text = yaml.safe_dump(kustomization) if form == "yaml" else json.dumps(kustomization)
        with open(os.path.join(folder, "kustomization.yaml"), "w") as out:
            out.write(text)
        with open(os.path.join(folder, "cm.yaml"), "w") as out:
            out.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")
        try:
            render(build(folder))
        except KustomizeError:
            pass
