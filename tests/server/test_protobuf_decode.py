"""Protobuf request bodies: real kubectl bodies decode to the JSON kubectl means by them.

tests/data/protobuf holds bodies kubectl v1.32 sent (see capture.py there) beside the same
commands' --dry-run=client -o json output. The wire-format vectors below are the examples of
the protobuf encoding guide; Go's time and duration renderings are Go's documented forms.
"""
from __future__ import annotations

import json
import pathlib

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.server.protobuf import ProtobufError, decode_body, message_name, parse_envelope
from kubelite.server.protobuf import decode as pbdecode
from kubelite.server.protobuf import wire

DATA = pathlib.Path(__file__).parent.parent / "data" / "protobuf"
CASES = [name for name, _ in json.loads((DATA / "cases.json").read_text())]


# --- helpers that build wire bytes for inputs (expected values never come from here) ---

def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _len_field(1, api_version.encode()) + _len_field(2, kind.encode())
    return b"k8s\x00" + _len_field(1, type_meta) + _len_field(2, raw)


# --- real kubectl bodies ---

@pytest.mark.parametrize("name", CASES)
def test_kubectl_body_decodes_to_its_json(name):
    body = (DATA / f"{name}.pb").read_bytes()
    expected = json.loads((DATA / f"{name}.json").read_text())
    decoded = decode_body(body)
    assert decoded == expected
    # encoding/json's field order too, so stored objects print like JSON-created ones
    assert json.dumps(decoded) == json.dumps(expected)


def test_envelope_of_a_kubectl_body():
    envelope = parse_envelope((DATA / "deployment.pb").read_bytes())
    assert (envelope.api_version, envelope.kind, envelope.content_encoding) == ("apps/v1", "Deployment", "")
    assert envelope.raw[:1] == b"\x0a"  # field 1 (metadata), length-delimited


def test_pointer_zero_survives_and_omitempty_zero_does_not():
    # --replicas=0 is a *int32 set to 0: present; PriorityClass --value=0 is a plain int32 without
    # omitempty: present; an empty --from-literal value is kept as "".
    assert decode_body((DATA / "deployment-zero.pb").read_bytes())["spec"]["replicas"] == 0
    assert decode_body((DATA / "priorityclass-zero.pb").read_bytes())["value"] == 0
    assert decode_body((DATA / "configmap.pb").read_bytes())["data"]["empty"] == ""


# --- wire format (vectors from the protobuf encoding guide) ---

def test_varint_150():
    assert list(wire.iter_fields(bytes.fromhex("089601"))) == [(1, wire.VARINT, 150)]


def test_negative_int32_travels_as_ten_bytes():
    value, end = wire.read_varint(bytes.fromhex("feffffffffffffffff01"), 0)
    assert (wire.signed(value, 32), end) == (-2, 10)


def test_packed_repeated():
    fields = list(wire.iter_fields(bytes.fromhex("2206038e029ea705")))
    assert fields[0][:2] == (4, wire.BYTES)
    assert list(wire.iter_packed(fields[0][2], wire.VARINT)) == [3, 270, 86942]


def test_zigzag():
    assert [wire.zigzag(n) for n in (0, 1, 2, 3, 4294967294)] == [0, -1, 1, -2, 2147483647]


def test_fixed_width_values():
    fields = list(wire.iter_fields(bytes.fromhex("09000000000000f83f") + bytes.fromhex("1d0000c03f")))
    assert [(n, t) for n, t, _ in fields] == [(1, wire.FIXED64), (3, wire.FIXED32)]
    assert wire.double(fields[0][2]) == 1.5 and wire.single(fields[1][2]) == 1.5


@pytest.mark.parametrize("data", [b"\x08", b"\x0a\x05ab", b"\x09\x00", b"\x0b", b"\x00\x01"])
def test_malformed_wire_raises_a_protobuf_error(data):
    with pytest.raises(ProtobufError):
        list(wire.iter_fields(data))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CASES), st.lists(st.tuples(st.integers(0, 2), st.integers(4, 10_000),
                                                  st.integers(0, 255)), min_size=1, max_size=4))
def test_damaged_kubectl_bodies_fail_only_with_protobuf_errors(name, edits):
    body = bytearray((DATA / f"{name}.pb").read_bytes())
    for op, pos, byte in edits:
        pos = 4 + pos % (len(body) - 4)
        if op == 0:
            body[pos] = byte
        elif op == 1:
            del body[pos]
        else:
            body.insert(pos, byte)
    try:
        decode_body(bytes(body))
    except ProtobufError:
        pass


def test_deeply_nested_embedded_json_is_a_protobuf_error():
    raw = b"[" * 100_000 + b"]" * 100_000
    body = _envelope("apps/v1", "ControllerRevision", _len_field(2, _len_field(1, raw)))
    with pytest.raises(ProtobufError, match="neither JSON nor protobuf"):
        decode_body(body)


# --- the special JSON forms ---

META = "k8s.io.apimachinery.pkg.apis.meta.v1"


def test_time_is_rfc3339_whole_seconds_in_utc():
    # `date -u -d @1700000000 +%FT%TZ` -> 2023-11-14T22:13:20Z; Time's JSON drops the nanoseconds.
    stamp = _int_field(1, 1700000000) + _int_field(2, 123456789)
    meta = pbdecode.decode_message(f"{META}.ObjectMeta",
                                   _len_field(1, b"x") + _len_field(8, stamp) + _len_field(9, stamp))
    assert meta == {"name": "x", "creationTimestamp": "2023-11-14T22:13:20Z",
                    "deletionTimestamp": "2023-11-14T22:13:20Z"}


def test_zero_time_is_null():
    assert pbdecode.decode_message(f"{META}.ObjectMeta", _len_field(8, b"")) == {"creationTimestamp": None}


def test_micro_time_keeps_microseconds():
    # events.k8s.io/v1 Event.eventTime is a MicroTime: RFC3339 with six fraction digits.
    stamp = _int_field(1, 1700000000) + _int_field(2, 123456789)
    event = pbdecode.decode_message("k8s.io.api.events.v1.Event", _len_field(2, stamp))
    assert event["eventTime"] == "2023-11-14T22:13:20.123456Z"


@pytest.mark.parametrize("nanoseconds,text", [
    (0, "0s"), (1, "1ns"), (1_500, "1.5µs"), (1_500_000, "1.5ms"), (1_500_000_000, "1.5s"),
    (90 * 60 * 10**9, "1h30m0s"), (72 * 3600 * 10**9 + 3 * 60 * 10**9 + 5 * 10**8, "72h3m0.5s"),
    (-2 * 10**9, "-2s"),
])
def test_go_duration_strings(nanoseconds, text):
    assert pbdecode.go_duration(nanoseconds) == text


def test_int_or_string_both_ways():
    name = "k8s.io.api.core.v1.ServicePort"
    as_int = _len_field(4, _int_field(1, 0) + _int_field(2, 8080))
    as_str = _len_field(4, _int_field(1, 1) + _len_field(3, b"http"))
    assert pbdecode.decode_message(name, as_int)["targetPort"] == 8080
    assert pbdecode.decode_message(name, as_str)["targetPort"] == "http"


def test_raw_extension_holding_json():
    body = _envelope("apps/v1", "ControllerRevision",
                     _len_field(2, _len_field(1, b'{"spec":{"replicas":3}}')) + _int_field(3, 7))
    # metadata is absent from the wire: Go's zero ObjectMeta, as JSON, still names creationTimestamp.
    assert decode_body(body) == {"kind": "ControllerRevision", "apiVersion": "apps/v1",
                                 "metadata": {"creationTimestamp": None},
                                 "data": {"spec": {"replicas": 3}}, "revision": 7}


def test_raw_extension_holding_an_enveloped_object():
    inner = _envelope("v1", "ConfigMap", _len_field(1, _len_field(1, b"cm")))
    body = _envelope("apps/v1", "ControllerRevision", _len_field(2, _len_field(1, inner)))
    assert decode_body(body)["data"] == {"kind": "ConfigMap", "apiVersion": "v1",
                                         "metadata": {"name": "cm", "creationTimestamp": None}}


def test_verbs_wrapper_is_a_list():
    resource = pbdecode.decode_message(f"{META}.APIResource",
                                       _len_field(1, b"pods") + _len_field(4, _len_field(1, b"get")
                                                                          + _len_field(1, b"list")))
    assert resource["verbs"] == ["get", "list"]


def test_bytes_map_values_are_base64():
    secret = pbdecode.decode_message("k8s.io.api.core.v1.Secret",
                                     _len_field(2, _len_field(1, b"k") + _len_field(2, b"\x00\xff")))
    assert secret["data"] == {"k": "AP8="}


def test_absent_list_without_omitempty_is_null():
    # ClusterRole.rules is `json:"rules"` without omitempty: kubectl's JSON shows "rules": null.
    expected = json.loads((DATA / "clusterrole-aggregated.json").read_text())
    assert expected["rules"] is None
    assert decode_body((DATA / "clusterrole-aggregated.pb").read_bytes())["rules"] is None


# --- the envelope ---

def test_message_names():
    assert message_name("apps/v1", "Deployment") == "k8s.io.api.apps.v1.Deployment"
    assert message_name("v1", "ConfigMap") == "k8s.io.api.core.v1.ConfigMap"
    assert message_name("rbac.authorization.k8s.io/v1", "Role") == "k8s.io.api.rbac.v1.Role"
    assert message_name("example.com/v1", "Widget") is None
    assert message_name("v1", "NoSuchKind") is None


@pytest.mark.parametrize("body,words", [
    (b'{"kind":"ConfigMap"}', "expected prefix"),
    (_envelope("example.com/v1", "Widget", b""), 'no kind "Widget"'),
    (_envelope("v1", "ConfigMap", b"\x0a\x05ab"), "runs past the end"),
    (_envelope("v1", "ConfigMap", _int_field(1, 3)), "metadata: wire type 0"),
    (_envelope("v1", "ConfigMap", _len_field(1, _len_field(1, b"\xff"))), "metadata.name: invalid UTF-8"),
    (b"k8s\x00" + _len_field(3, b"gzip") + _len_field(1, _len_field(2, b"ConfigMap")), "contentEncoding"),
])
def test_bad_bodies_say_what_is_wrong(body, words):
    with pytest.raises(ProtobufError, match=words):
        decode_body(body)


# --- the field table against the OpenAPI definitions of the same release ---

def _json_names(protos, message):
    names = set()
    for _, json_name, ftype, flags in protos.messages[message]:
        names |= _json_names(protos, ftype) if "i" in flags else {json_name}
    return names


def test_field_table_matches_openapi_properties():
    from kubelite.schema.builtin import builtin_definitions

    definitions = builtin_definitions("1.32").definitions
    protos = pbdecode.table()
    compared = 0
    for message in protos.messages:
        node = definitions.get("io.k8s." + message[len("k8s.io."):])
        if node is None or message in protos.special:
            continue
        # TypeMeta (kind, apiVersion) is not part of the protobuf message; the envelope carries it.
        properties = set(node.get("properties") or {}) - {"kind", "apiVersion"}
        assert _json_names(protos, message) - {"kind", "apiVersion"} == properties, message
        compared += 1
    assert compared > 500


# --- through the HTTP pipeline (in-process app) ---

@pytest.fixture
def client():
    from kubelite.server.app import create_app
    from kubelite.server.core import APIServer
    from kubelite.server.inprocess import InProcessTransport
    from kubelite.server.resources import Registry
    from kubelite.server.storage import open_store

    api = APIServer(open_store("memory://"), Registry())
    api.bootstrap()
    transport = InProcessTransport(create_app(api))
    with httpx.Client(transport=transport, base_url="http://kubelite") as c:
        yield c
    transport.close()


PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf",
            "Accept": "application/vnd.kubernetes.protobuf,application/json"}


def test_create_from_a_protobuf_body(client):
    body = (DATA / "configmap.pb").read_bytes()
    response = client.post("/api/v1/namespaces/default/configmaps", content=body, headers=PROTOBUF)
    assert response.status_code == 201, response.text
    assert response.headers["content-type"] == "application/json"
    created = response.json()
    assert created["data"] == json.loads((DATA / "configmap.json").read_text())["data"]
    assert created["metadata"]["creationTimestamp"]


def test_update_from_a_protobuf_body(client):
    body = (DATA / "serviceaccount.pb").read_bytes()
    assert client.post("/api/v1/namespaces/default/serviceaccounts", content=body,
                       headers=PROTOBUF).status_code == 201
    response = client.put("/api/v1/namespaces/default/serviceaccounts/pb-sa", content=body, headers=PROTOBUF)
    assert response.status_code == 200, response.text


def test_malformed_protobuf_is_a_400(client):
    response = client.post("/api/v1/namespaces/default/configmaps", content=b"k8s\x00\x0a\x05ab",
                           headers=PROTOBUF)
    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"


def test_custom_resources_take_no_protobuf(client):
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object",
                                                                 "x-kubernetes-preserve-unknown-fields": True}}}]}}
    assert client.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd).status_code == 201
    body = _envelope("example.com/v1", "Widget", _len_field(1, _len_field(1, b"w")))
    response = client.post("/apis/example.com/v1/namespaces/default/widgets", content=body, headers=PROTOBUF)
    assert response.status_code == 415
    assert response.json()["reason"] == "UnsupportedMediaType"
