"""Reading an apply patch body (application/apply-patch+yaml: YAML or JSON) with
kube-apiserver's errors."""
from __future__ import annotations

from kubelite.server import errors


def decode(body: bytes) -> dict:
    from kubelite.manifest._goyaml import DecodeError, decode_yaml

    try:
        value = decode_yaml(body.decode("utf-8", "replace"))
    except DecodeError as err:
        raise errors.bad_request(f"error decoding YAML: error converting YAML to JSON: {err.message}") from None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise errors.bad_request("error decoding YAML: json: cannot unmarshal "
                                 f"{_json_kind(value)} into Go value of type map[string]interface {{}}")
    return value


def _json_kind(value) -> str:
    from kubelite.schema.gojson import json_kind

    return json_kind(value)


def check_namespace(r, config: dict, namespace: str) -> None:
    given = (config.get("metadata") or {}).get("namespace")
    if r.namespaced and given and namespace and given != namespace:
        raise errors.bad_request("the namespace of the provided object does not match the namespace sent on the "
                                 "request")


def check(r, config: dict, name: str) -> None:
    """The checks kube-apiserver makes on an applied object before merging it."""
    meta = config.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise errors.bad_request("metadata must be an object")
    meta = meta or {}
    if meta.get("managedFields"):  # an empty list is as good as none
        raise errors.bad_request("metadata.managedFields must be nil")
    api_version, kind = config.get("apiVersion"), config.get("kind")
    if api_version != r.api_version or kind != r.kind:
        group, _, version = str(api_version or "").rpartition("/")
        raise errors.bad_request(f"invalid object type: {group}/{version}, Kind={kind or ''}")
    given = meta.get("name")
    if given is not None and given != name and isinstance(given, str):
        raise errors.bad_request(f"the name of the object ({given}) does not match the name on the URL ({name})")
