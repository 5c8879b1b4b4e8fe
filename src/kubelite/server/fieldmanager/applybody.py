"""Reading an apply patch body (application/apply-patch+yaml: YAML or JSON) with
kube-apiserver's errors."""
from __future__ import annotations

from kubelite.server import errors


def decode(body: bytes) -> dict:
    text = body.decode("utf-8", "replace")
    value = _plain_json(text)
    if value is not None:
        return value
    from kubelite.manifest._goyaml import DecodeError, decode_yaml

    try:
        value = decode_yaml(text)
    except DecodeError as err:
        raise errors.bad_request(f"error decoding YAML: error converting YAML to JSON: {err.message}") from None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise errors.bad_request("error decoding YAML: json: cannot unmarshal "
                                 f"{_json_kind(value)} into Go value of type map[string]interface {{}}")
    return value


_INT64 = 2 ** 63


class _NotPlain(Exception):
    pass


def _refuse(text: str):
    raise _NotPlain


def _int64(text: str) -> int:
    value = int(text)
    if not -_INT64 <= value < _INT64:
        raise _NotPlain
    return value


def _plain_json(text: str) -> dict | None:
    """A JSON object read as YAML would read it, when reading it as JSON gives the same: what
    kubectl sends (compact JSON, ASCII) mostly is. None: let the YAML reader decide.

    YAML differs from JSON on floats (1.0 is the integer 1), integers past int64, escapes (go-yaml
    knows fewer), tabs, line separators and other non-ASCII breaks, and the "<<" merge key; a
    text with any of them takes the YAML reader. Repeated keys keep the last value at the first
    place in both."""
    if not text.startswith("{") or not text.isascii() or "\\" in text or "\t" in text or '"<<"' in text:
        return None
    import json

    try:
        value = json.loads(text, parse_float=_refuse, parse_constant=_refuse, parse_int=_int64)
    except (_NotPlain, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


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
