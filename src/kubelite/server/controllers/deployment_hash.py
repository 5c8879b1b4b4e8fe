"""The pod-template-hash as kube-controller-manager computes it, so ReplicaSets get the names a
real cluster gives them (`web-7ff9978cb9`).

Upstream hashes the Go value of the template printed by go-spew with `%#v` (every field of every
struct, in declaration order, each value preceded by its Go type; pointers, slices and maps that
are nil print `<nil>`), then FNV-32a, plus the collision count as 8 little-endian bytes. The
layout of the Go structs comes from the schema data (schema/data/go_json_types.json). Values whose
Go internals the data cannot tell (resource quantities, set timestamps) are not supported:
`go_hash` then returns None and the caller uses its own stable hash.
"""
from __future__ import annotations

import functools
import json
from importlib import resources

TEMPLATE_STRUCT = "k8s.io.api.core.v1.PodTemplateSpec"
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

# Go field names that are not the JSON name with its first letter capitalised.
_GO_NAMES = {
    "uid": "UID", "dnsPolicy": "DNSPolicy", "dnsConfig": "DNSConfig", "serviceAccount": "DeprecatedServiceAccount",
    "tty": "TTY", "os": "OS", "seLinuxOptions": "SELinuxOptions", "fsGroup": "FSGroup",
    "fsGroupChangePolicy": "FSGroupChangePolicy", "seLinuxChangePolicy": "SELinuxChangePolicy",
    "metadata": "ObjectMeta", "apiVersion": "APIVersion", "httpGet": "HTTPGet", "tcpSocket": "TCPSocket",
    "grpc": "GRPC", "ip": "IP", "httpHeaders": "HTTPHeaders", "fsType": "FSType", "iscsi": "ISCSI", "nfs": "NFS",
    "rbd": "RBD", "fc": "FC", "csi": "CSI", "cephfs": "CephFS", "gcePersistentDisk": "GCEPersistentDisk",
    "awsElasticBlockStore": "AWSElasticBlockStore", "storageos": "StorageOS", "targetWWNs": "TargetWWNs",
    "wwids": "WWIDs", "iqn": "IQN", "iscsiInterface": "ISCSIInterface", "chapAuthDiscovery": "DiscoveryCHAPAuth",
    "chapAuthSession": "SessionCHAPAuth", "gmsaCredentialSpecName": "GMSACredentialSpecName",
    "gmsaCredentialSpec": "GMSACredentialSpec", "sslEnabled": "SSLEnabled", "pdName": "PDName",
}
# Structs that embed another one inline (its JSON fields flattened in the data): the embedded
# struct's Go name and type, and the JSON fields that are its own.
_EMBEDDED = {
    "k8s.io.api.core.v1.Volume": ("VolumeSource", "k8s.io.api.core.v1.VolumeSource", "v1.VolumeSource"),
    "k8s.io.api.core.v1.Probe": ("ProbeHandler", "k8s.io.api.core.v1.ProbeHandler", "v1.ProbeHandler"),
    "k8s.io.api.core.v1.EphemeralContainer": ("EphemeralContainerCommon",
                                              "k8s.io.api.core.v1.EphemeralContainerCommon",
                                              "v1.EphemeralContainerCommon"),
}
_INTS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}
_ZERO_TIME = "{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}"


class Unsupported(Exception):
    """A value whose Go form the hash cannot reproduce."""


@functools.cache
def _structs() -> dict:
    raw = (resources.files("kubelite.schema") / "data" / "go_json_types.json").read_bytes()
    return json.loads(raw)["types"]


def go_hash(template: dict, collision_count: int | None = None) -> str | None:
    """The pod-template-hash of a (defaulted) template, or None if it holds unsupported values."""
    try:
        text = "(v1.PodTemplateSpec)" + _struct(TEMPLATE_STRUCT, template or {})
    except (Unsupported, KeyError, TypeError, ValueError):
        return None
    data = text.encode()
    if collision_count is not None:
        data += (int(collision_count) & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return "".join(ALPHABET[ord(ch) % len(ALPHABET)] for ch in str(fnv32a(data)))


@functools.lru_cache(maxsize=256)
def fnv32a(data: bytes) -> int:
    # A byte at a time in Python (~0.5 ms a template); kept, for the same templates are hashed
    # at every sync of their Deployment and, in a test suite, in every cluster that applies them.
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def _go_name(json_name: str) -> str:
    return _GO_NAMES.get(json_name) or json_name[:1].upper() + json_name[1:]


def _struct(name: str, value) -> str:
    if not isinstance(value, dict):
        raise Unsupported(name)
    fields = _structs()[name]
    embedded = _EMBEDDED.get(name)
    parts = []
    if embedded is not None:
        go_name, inner, printed = embedded
        own = {f[0] for f in _structs()[inner]}
        inner_value = {k: v for k, v in value.items() if k in own}
        fields_here = [f for f in fields if f[0] not in own]
        # The embedded struct is the first field, except in Volume (after Name).
        at = 1 if name.endswith(".Volume") else 0
        rendered = [f"{_go_name(j)}:{_typed(t, p, value.get(j))}" for j, t, _, p in fields_here]
        rendered.insert(at, f"{go_name}:({printed}){_struct(inner, inner_value)}")
        return "{" + " ".join(rendered) + "}"
    for json_name, go_type, _, printed in fields:
        parts.append(f"{_go_name(json_name)}:{_typed(go_type, printed, value.get(json_name))}")
    return "{" + " ".join(parts) + "}"


def _typed(go_type: str, printed: str, value) -> str:
    """A struct field: its Go type in parentheses, then its value."""
    head = f"({printed})"
    if go_type.startswith("*"):
        return head + ("<nil>" if value is None else _value(go_type[1:], value))
    return head + _value(go_type, value)


def _value(go_type: str, value) -> str:
    if go_type == "@Time":
        if value is not None:
            raise Unsupported("a set timestamp")
        return _ZERO_TIME
    if go_type == "@IntOrString":
        return _int_or_string(value)
    if go_type.startswith("@"):
        raise Unsupported(go_type)
    if go_type.startswith("[]"):
        if value is None:
            return "<nil>"
        return "[" + " ".join(_element(go_type[2:], v) for v in value) + "]"
    if go_type.startswith("map:"):
        if value is None:
            return "<nil>"
        if go_type != "map:string":
            raise Unsupported(go_type)
        return "map[" + " ".join(f"{k}:{value[k]}" for k in sorted(value)) + "]"
    return _scalar_or_struct(go_type, value)


def _element(go_type: str, value) -> str:
    """A slice element: no type in front (spew leaves it out inside slices and maps)."""
    if go_type.startswith("@") or go_type.startswith("[]") or go_type.startswith("map:") or go_type.startswith("*"):
        raise Unsupported(go_type)
    return _scalar_or_struct(go_type, value)


def _scalar_or_struct(go_type: str, value) -> str:
    if go_type == "string":
        return "" if value is None else str(value)
    if go_type in _INTS:
        if isinstance(value, bool) or not isinstance(value, (int, type(None))):
            raise Unsupported(go_type)
        return str(value or 0)
    if go_type == "bool":
        return "true" if value else "false"
    if go_type in _structs():
        return _struct(go_type, value if value is not None else {})
    raise Unsupported(go_type)


def _int_or_string(value) -> str:
    if isinstance(value, bool):
        raise Unsupported("IntOrString")
    if isinstance(value, int):
        return f"{{Type:(intstr.Type)0 IntVal:(int32){value} StrVal:(string)}}"
    if isinstance(value, str):
        return f"{{Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string){value}}}"
    raise Unsupported("IntOrString")
