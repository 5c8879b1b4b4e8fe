"""Fuzzing the server's doors with bad input (issue 19): the body decoders, the patch engine,
the HTTP app and the CLI's manifest reader. Nothing may escape as a Python exception, the app
never answers with its panic text (a bug) nor with Python's words, never answers 500 where
kube-apiserver does not (KUBE_APISERVER_500S lists where it does), and every request answers
within REQUEST_BOUND; /healthz answers within HEALTHZ_BOUND while a worst-case request runs.

The issue's corpus categories are strategies of their own: YAML aliases (bombs, self and
undefined references), deep nesting (to past Go's 10,000 levels), NUL in names, lone
surrogates (escaped and as raw bytes) and huge integers (past int64, float64 and Python's
4,300-digit conversion limit).

Bounded for CI; for a longer run by hand: KUBELITE_FUZZ_EXAMPLES=5000 pytest tests/server/test_hardening_fuzz.py
"""
from __future__ import annotations

import json
import os
import re
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.handlers import jsonbody

EXAMPLES = int(os.environ.get("KUBELITE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large, HealthCheck.large_base_example])
# Bounds for a loaded 2-core machine, far above what the requests take (a 10,000-operation
# JSON patch about 1 s, /healthz a few ms): a request over them is a hang, not slowness.
REQUEST_BOUND = 5.0  # seconds for any one fuzzed request
HEALTHZ_BOUND = 2.0  # seconds for /healthz while a worst-case request runs

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


# Where kube-apiserver 1.32 itself answers a client's mistake with a 5xx, and so must kubelite:
# (code, method, content type or None, message pattern).
KUBE_APISERVER_5XX = [
    # patch.go's interpretStrategicMergePatchError maps only apimachinery's mergepatch sentinel
    # errors to 400/422 and returns every other strategicpatch error as is: a plain error, a 500
    # without a reason. Recorded: errors/patch-smp-bad-directive ("unknown patch type"); the
    # others are the fmt.Errorf errors of strategicpatch/patch.go and mergepatch/errors.go,
    # which take the same branch.
    (500, "PATCH", "application/strategic-merge-patch+json", re.compile(
        r"unknown patch type: |expected a .+, but received a |map: .* does not contain declared merge key: "
        r"|unable to find api field |The order in patch list:|.* are not deep equal: "
        r"|cannot merge lists without merge key for |merging lists cannot yet be specified in the patch$"
        r"|unexpected patch strategy: |list element types are not identical: "
        r"|no elements in any of the given slices$|value for key .* is not a map$", re.S)),
    # recorded: ssa/20-error-unknown-field-strict, 21-unknown-field-default, 21b-unknown-field-ignore
    (500, "PATCH", "application/apply-patch+yaml", re.compile(r"failed to create typed patch object \(")),
    # recorded: errors/get-with-invalid-resourceversion, errors/list-with-invalid-resourceversion
    # (strconv.ParseUint's "invalid syntax"; its "value out of range" past uint64 likewise)
    (500, "GET", None, re.compile(r'resourceVersion: Invalid value: ".*": strconv\.ParseUint: parsing ".*": '
                                  r"(invalid syntax|value out of range)$", re.S)),
    # recorded: lists/rv-future, lists/rv-get-object-future (a resourceVersion not reached in 3 s)
    (504, "GET", None, re.compile(r"Timeout: Too large resource version: \d+, current: \d+$")),
]


def assert_answered_as_a_server(response) -> None:
    text = response.text
    assert PANIC not in text, text
    assert not any(words in text for words in PYTHON_WORDS), text[:500]
    if response.status_code >= 500:
        method = response.request.method
        content_type = response.request.headers.get("content-type")
        body = response.json()
        reason = {500: None, 504: "Timeout"}.get(response.status_code, "not kube-apiserver's")
        assert body.get("reason") == reason, text[:500]
        assert any(response.status_code == code and method == m and (t is None or content_type == t)
                   and pattern.match(body["message"]) for code, m, t, pattern in KUBE_APISERVER_5XX), text[:500]


def timed(send, *args, **kwargs):
    """`send(*args, **kwargs)`, which must answer within REQUEST_BOUND."""
    start = time.monotonic()
    response = send(*args, **kwargs)
    took = time.monotonic() - start
    assert took < REQUEST_BOUND, f"{args[:2]} took {took:.1f} s"
    return response


REQUESTS = st.sampled_from([
    ("POST", CMS, "application/json"),
    ("PATCH", CMS + "/target?fieldManager=fuzz", "application/apply-patch+yaml"),
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
    response = timed(api.request, method, path, content=body, headers={"content-type": content_type})
    assert_answered_as_a_server(response)


QUERY_VALUES = st.text(max_size=30) | st.integers().map(str) | st.just("9" * 40)


@FUZZ
@given(st.sampled_from(["limit", "timeoutSeconds", "gracePeriodSeconds", "resourceVersion", "labelSelector",
                        "fieldSelector", "continue", "dryRun", "fieldValidation", "propagationPolicy"]),
       QUERY_VALUES, st.sampled_from(["GET", "DELETE"]))
def test_app_answers_bad_query_parameters(api, name, value, method):
    path = CMS if method == "GET" else CMS + "/nothing"
    response = timed(api.request, method, path, params={name: value})
    assert_answered_as_a_server(response)


# -- the corpus categories as strategies ---------------------------------------------------

def _alias_bomb(levels: int, fanout: int, merge: bool) -> str:
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*a{level - 1}"] * fanout)
        lines.append(f"a{level}: &a{level} {{<<: *a{level - 1}, k: [{refs}]}}" if merge and level == 1
                     else f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines)


yaml_aliases = st.one_of(
    st.builds(_alias_bomb, st.integers(1, 12), st.integers(2, 10), st.booleans()),
    st.sampled_from(["x: &a [*a]", "x: *nothing", "x: &a {k: *a}", "<<: *a", "x: &a\n  - *a",
                     "x: &a !!int x", "x: !!binary '%%%'", "x: !!float abc", "x: &a !!map [1]"]),
)


def _nest(depth: int, form: str) -> str:
    if form == "list":
        return "[" * depth + "]" * depth
    if form == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return "- " * depth + "x"  # a YAML block sequence of sequences


deep_values = st.builds(_nest, st.sampled_from([1, 10, 999, 1000, 1001, 9998, 9999, 10000, 10001, 10002, 12000])
                        | st.integers(1, 12000), st.sampled_from(["list", "object"]))
deep_yaml = st.builds(_nest, st.integers(1, 300), st.just("block"))

nul_names = st.builds(lambda head, tail: head + "\x00" + tail, st.text(max_size=8), st.text(max_size=8))

lone_surrogates = st.builds(lambda head, code, tail: f"{head}\\u{code:04x}{tail}",
                            st.sampled_from(["", "x", "\\ud800"]), st.integers(0xD800, 0xDFFF),
                            st.sampled_from(["", "y", "\\udc00", "\\u0041"]))

huge_integers = st.one_of(
    st.integers(min_value=-(10 ** 40), max_value=10 ** 40).map(str),
    st.builds(lambda sign, digits: sign + "9" * digits, st.sampled_from(["", "-"]),
              st.sampled_from([19, 20, 309, 310, 4300, 4301, 5000, 6000])),
    st.sampled_from(["1e400", "-1e400", "1e-400", "9223372036854775808", "-9223372036854775809",
                     "18446744073709551616", "0x7fffffffffffffffff", "1_000", "0o17", ".inf", "-.Inf", ".nan"]),
)


def _document(form: str, name: str, value: str, extra: str) -> bytes:
    """A ConfigMap whose name, a data value and an extra field come from the corpus: `value`
    and `extra` are JSON (or YAML flow) text, `name` a Python string."""
    if form == "json":
        return (f'{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":{json.dumps(name)}}},'
                f'"data":{{"k":{value}}},"x":{extra}}}').encode("utf-8", "surrogatepass")
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {json.dumps(name)}\ndata:\n  k: {value}\n"
            f"x: {extra}\n").encode("utf-8", "surrogatepass")


corpus_scalars = st.one_of(huge_integers, lone_surrogates.map(lambda text: f'"{text}"'), st.just('"v"'))
corpus_documents = st.one_of(
    st.builds(_document, st.sampled_from(["json", "yaml"]), st.just("ok") | nul_names, corpus_scalars,
              deep_values | huge_integers | st.just("null")),
    st.builds(lambda bomb: ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" + bomb).encode(),
              yaml_aliases),
    st.builds(lambda nested: ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nx:\n" + nested).encode(),
              deep_yaml),
    st.builds(lambda text: text.encode("utf-8", "surrogatepass"),
              st.text(alphabet=st.characters(blacklist_categories=()), max_size=60)),
    st.binary(max_size=60).map(lambda raw: b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + raw + b"}\n"),
    st.sampled_from([b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"\xed\xa0\x80"}}',
                     b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xed\xa0\x80}\n"]),
)


@FUZZ
@given(corpus_documents, st.sampled_from(["POST", "PUT"]), st.sampled_from(["application/json", "application/yaml"]))
def test_app_answers_the_corpus_as_kube_apiserver_would(api, body, method, content_type):
    path = CMS if method == "POST" else CMS + "/target"
    response = timed(api.request, method, path, content=body, headers={"content-type": content_type})
    assert_answered_as_a_server(response)


@FUZZ
@given(corpus_documents, st.sampled_from(["application/json", "application/yaml"]))
def test_server_body_decoders_answer_the_corpus_with_a_status(body, content_type):
    from kubelite.server.errors import StatusError
    from kubelite.server.handlers import decode
    from kubelite.server.resources import builtin_resources

    configmaps = next(r for r in builtin_resources() if r.group == "" and r.resource == "configmaps")
    try:
        decode.decode_object(body, content_type, configmaps)
    except StatusError as err:
        assert 400 <= err.code < 500, (err.code, str(err))


MANIFEST = "fuzz.yaml"


@FUZZ
@given(corpus_documents | mutated(BODY) | st.binary(max_size=200))
def test_manifest_reader_fails_only_with_manifest_errors(data):
    from kubelite.manifest import ManifestError, read_text

    try:
        read_text(data, MANIFEST)
    except ManifestError as err:
        message = str(err)
        assert "Traceback" not in message and "\n" not in message.strip(), message
        # the file is named, or the problem is one kubectl reports without it
        assert err.source == MANIFEST or MANIFEST in message or message.startswith(
            ("*unstructured.Unstructured is not a list",)), message


# -- time bounds while others wait ------------------------------------------------------------------

def _worst_cases() -> st.SearchStrategy[tuple[str, str, bytes, str]]:
    doubling = [{"op": "copy", "from": "/metadata", "path": f"/metadata/x{i}"} for i in range(10000)]
    adds = [{"op": "add", "path": f"/data/k{i}", "value": "v" * 100} for i in range(10000)]
    wide = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "wide"},
                       "data": {f"k{i}": "v" * 200 for i in range(14000)}}).encode()  # just under 3 MiB
    fixed = st.sampled_from([
        ("PATCH", CMS + "/target", json.dumps(doubling).encode(), "application/json-patch+json"),
        ("PATCH", CMS + "/target", json.dumps(adds).encode(), "application/json-patch+json"),
        ("POST", CMS, wide, "application/json"),
    ])
    bombs = st.builds(lambda bomb: ("POST", CMS, ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n"
                                                   + bomb).encode(), "application/yaml"),
                      st.builds(_alias_bomb, st.integers(8, 12), st.integers(8, 10), st.booleans()))
    deep = st.builds(lambda depth, form: ("POST", CMS, _document("json", "deep", '"v"', _nest(depth, form)),
                                          "application/json"),
                     st.integers(9990, 10010), st.sampled_from(["list", "object"]))
    return fixed | bombs | deep


@pytest.fixture(scope="module")
def served():
    from test_hardening_served import http_server

    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with http_server(cluster.app) as url:
            import httpx

            with httpx.Client(base_url=url, timeout=120) as client:
                client.post(CMS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"},
                                       "data": {}})
                yield client, url


@settings(FUZZ, max_examples=max(3, EXAMPLES // 10))
@given(_worst_cases())
def test_healthz_answers_while_a_worst_case_request_runs(served, request_spec):
    import httpx

    client, url = served
    method, path, body, content_type = request_spec
    answers: list = []

    def worst():
        with httpx.Client(base_url=url, timeout=120) as own:
            answers.append(timed(own.request, method, path, content=body, headers={"content-type": content_type}))

    runner = threading.Thread(target=worst, daemon=True)
    runner.start()
    polls = 0
    while runner.is_alive() or polls == 0:
        start = time.monotonic()
        assert client.get("/healthz", timeout=HEALTHZ_BOUND * 5).text == "ok"
        took = time.monotonic() - start
        assert took < HEALTHZ_BOUND, f"/healthz took {took:.2f} s beside {method} {path}"
        polls += 1
    runner.join()
    assert answers, "the worst-case request failed"
    assert_answered_as_a_server(answers[0])
    for name in ("wide", "deep", "bomb"):
        client.delete(f"{CMS}/{name}")
    client.put(f"{CMS}/target", json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"},
                                      "data": {}})


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
