"""/openapi/v2 as gnostic protobuf, OpenAPI content negotiation and caching headers, and real
kubectl reading the protobuf form (client-side validation of a List, explain from v2)."""
from __future__ import annotations

import gzip
import json
import pathlib
import sys
import types

import pytest
import yaml

from kubelite.server.handlers.discovery import negotiate_openapi, openapi as serve_openapi
from kubelite.server.handlers.http import Request
from kubelite.server.openapi import OpenAPI
from kubelite.server.protobuf import ProtobufError
from kubelite.server.protobuf.openapiv2 import decode_document, encode_document
from kubelite.server.resources import Registry
from kubelite.server.routing import Query

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_serve_support import KUBECTL, kubectl_at, serving  # noqa: E402

REF = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference"
PB_V2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
PB_V2_KUBECTL = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"  # client-go's Accept


@pytest.fixture(scope="module")
def api():
    registry = Registry()
    registry.register_crd(yaml.safe_load((REF / "apiserver" / "defaults" / "crd-rich.in.yaml").read_text()))
    return types.SimpleNamespace(registry=registry, _openapi=OpenAPI(registry))


def get(api, path: str, query: str = "", **headers: str):
    request = Request("GET", path, Query(query), {k.replace("_", "-").lower(): v for k, v in headers.items()})
    return serve_openapi(api, request)


def header(response, name: str) -> str | None:
    values = [v for k, v in response.headers if k.lower() == name.lower()]
    return values[-1] if values else None


# -- the encoding -------------------------------------------------------------------------------


def test_field_numbers_of_a_small_document():
    # Document.swagger = 1, Document.info = 2 {title = 1, version = 2}, Document.vendor_extension
    # = 16 holding NamedAny {name = 1, value = 2: Any {yaml = 2}} (from OpenAPIv2.proto).
    data = encode_document({"swagger": "2.0", "info": {"title": "T", "version": "v"}, "x-a": "b"})
    assert data == (b"\x0a\x032.0" + b"\x12\x06" + b"\x0a\x01T\x12\x01v"
                    + b"\x82\x01\x0d" + b"\x0a\x03x-a" + b"\x12\x06\x12\x04\"b\"\n")


_NUMERIC_KEYWORDS = {"minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
                     "minProperties", "maxProperties"}


def without_proto3_zeros(node):
    """proto3 does not write a scalar at its zero value: `minimum: 0`, `uniqueItems: false`...
    cannot survive the protobuf form (kube-apiserver's neither). `additionalProperties: false`
    is a oneof member and does."""
    if isinstance(node, list):
        return [without_proto3_zeros(v) for v in node]
    if not isinstance(node, dict):
        return node
    return {k: without_proto3_zeros(v) for k, v in node.items()
            if not (k in _NUMERIC_KEYWORDS and v == 0 and not isinstance(v, bool))
            and not (v is False and k != "additionalProperties" and not k.startswith("x-"))}


def test_round_trip_equals_the_json_document(api):
    doc = json.loads(api._openapi.v2())
    back = decode_document(api._openapi.v2_protobuf())
    assert back == without_proto3_zeros(doc)
    # the custom resource's definitions (preserve-unknown-fields, int-or-string...) are in it,
    # and its `minimum: 0` is the only zero the document has
    assert any(name.startswith("com.example.rc.v1.") for name in doc["definitions"])
    replicas = doc["definitions"]["com.example.rc.v1.Widget"]["properties"]["spec"]["properties"]["replicas"]
    assert replicas["minimum"] == 0 and "minimum" not in without_proto3_zeros(replicas)


def test_builtin_document_round_trips_exactly():
    docs = OpenAPI(Registry())
    assert decode_document(docs.v2_protobuf()) == json.loads(docs.v2())


def test_oneof_shapes_round_trip():
    doc = {"swagger": "2.0",
           "paths": {"/x": {"get": {"parameters": [
               {"name": "body", "in": "body", "required": True, "schema": {"$ref": "#/definitions/A"}},
               {"name": "q", "in": "query", "type": "integer", "minimum": -3, "uniqueItems": True},
               {"name": "h", "in": "header", "type": "array", "items": {"type": "string"}},
               {"$ref": "#/parameters/p"}],
               "responses": {"200": {"description": "OK", "schema": {"type": "file"}},
                             "404": {"$ref": "#/responses/nf"}, "x-r": [1]}}},
               "x-p": {"k": None}},
           "definitions": {"A": {"type": ["string", "null"], "additionalProperties": False,
                                 "items": [{"type": "string"}, {"type": "integer"}],
                                 "enum": ["a", 1], "default": {"k": [1.5]}, "maximum": 2.5,
                                 "properties": {"b": {"additionalProperties": {"type": "string"}}}}},
           "securityDefinitions": {"k": {"type": "apiKey", "name": "authorization", "in": "header"},
                                   "o": {"type": "oauth2", "flow": "implicit", "authorizationUrl": "u",
                                         "scopes": {"read": "r"}}},
           "security": [{"k": []}, {"o": ["read"]}]}
    assert decode_document(encode_document(doc)) == doc


def test_bad_input_names_the_path():
    with pytest.raises(ProtobufError, match=r"\$\.definitions\.A: Schema has no field 'bogus'"):
        encode_document({"definitions": {"A": {"bogus": 1}}})
    with pytest.raises(ProtobufError, match=r"parameters\[0\]\.in: unsupported parameter location"):
        encode_document({"paths": {"/x": {"get": {"parameters": [{"name": "a", "in": "cookie"}]}}}})


# -- content negotiation as kube-openapi's handler ----------------------------------------------


@pytest.mark.parametrize("accept, chosen", [
    (None, "json"), ("*/*", "json"), ("application/json", "json"), ("application/*", "json"),
    (PB_V2_KUBECTL, "com.github.proto-openapi.spec.v2@v1.0+protobuf"),
    (PB_V2, "com.github.proto-openapi.spec.v2.v1.0+protobuf"),
    (f"application/json;q=0.5, {PB_V2}", "com.github.proto-openapi.spec.v2.v1.0+protobuf"),
    (f"{PB_V2_KUBECTL}, application/json", "com.github.proto-openapi.spec.v2@v1.0+protobuf"),
    ("text/plain", None),
])
def test_negotiation(accept, chosen):
    offers = ("json", "com.github.proto-openapi.spec.v2@v1.0+protobuf",
              "com.github.proto-openapi.spec.v2.v1.0+protobuf")
    assert negotiate_openapi(accept, offers) == chosen


def test_v2_forms_share_one_etag_of_the_json(api):
    as_json = get(api, "/openapi/v2", accept="application/json")
    as_pb = get(api, "/openapi/v2", accept=PB_V2_KUBECTL)
    assert as_json.content_type == "application/json" and as_pb.content_type == PB_V2
    assert decode_document(as_pb.body) == without_proto3_zeros(json.loads(as_json.body))
    tag = header(as_json, "Etag")
    assert tag == header(as_pb, "Etag") and tag.startswith('"') and len(tag) == 130
    again = get(api, "/openapi/v2", accept=PB_V2_KUBECTL, if_none_match=tag)
    assert again.status == 304 and again.body == b""
    assert get(api, "/openapi/v2", accept="text/html").status == 406


def test_v2_gzip_when_accepted(api):
    response = get(api, "/openapi/v2", accept=PB_V2_KUBECTL, accept_encoding="gzip")
    assert header(response, "Content-Encoding") == "gzip"
    assert gzip.decompress(response.body) == api._openapi.v2_protobuf()
    assert header(get(api, "/openapi/v2", accept=PB_V2_KUBECTL), "Content-Encoding") is None


def test_v3_hash_is_immutable_and_stale_hash_redirects(api):
    index = json.loads(get(api, "/openapi/v3").body)
    url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
    path, _, query = url.partition("?")
    fresh = get(api, path, query)
    assert fresh.status == 200
    assert header(fresh, "Cache-Control") == "public, immutable" and header(fresh, "Expires")
    assert header(fresh, "Etag") == '"' + query.removeprefix("hash=") + '"'
    stale = get(api, path, "hash=0123")
    assert stale.status == 301 and header(stale, "Location") == url
    plain = get(api, path)
    assert plain.status == 200 and header(plain, "Cache-Control") is None


# -- real kubectl -------------------------------------------------------------------------------


needs_kubectl = pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("openapi-pb")
    with serving(base) as server:
        yield server, base


def kubectl(served, *args, stdin=None):
    server, base = served
    return kubectl_at(server, base / "cache", *args, stdin=stdin)


def _cm(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "b"}, **extra}


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_applies_a_json_list_from_stdin_with_validation(served):
    listed = {"apiVersion": "v1", "kind": "List", "items": [_cm("pb-one"), _cm("pb-two")]}
    proc = kubectl(served, "apply", "-f", "-", "-v=6", stdin=json.dumps(listed))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "configmap/pb-one created\nconfigmap/pb-two created\n"
    assert "GET https://127.0.0.1" in proc.stderr and "/openapi/v2" in proc.stderr  # the protobuf path ran


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_client_validation_reads_our_schema(served):
    listed = {"apiVersion": "v1", "kind": "List", "items": [_cm("pb-bad", bogus=1)]}
    proc = kubectl(served, "apply", "-f", "-", stdin=json.dumps(listed))
    assert proc.returncode == 1
    assert ('error validating data: ValidationError(ConfigMap): unknown field "bogus" in '
            "io.k8s.api.core.v1.ConfigMap") in proc.stderr


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_explain_from_openapi_v2(served):
    proc = kubectl(served, "explain", "--output=plaintext-openapiv2", "deployment.spec")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("KIND:     Deployment\nVERSION:  apps/v1\n\nRESOURCE: spec <Object>\n")
    assert "   strategy\t<Object>\n" in proc.stdout
    assert "   replicas\t<integer>\n" in proc.stdout
