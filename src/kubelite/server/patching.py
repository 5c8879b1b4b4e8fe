"""Applying a PATCH body to the stored object, by Content-Type, with kube-apiserver's errors.

The patch algorithms live in kubelite.patch; this module only chooses one and translates
its failures into API Status errors.
"""
from __future__ import annotations

import json

from kubelite.schema.gojson import json_kind
from kubelite.server import errors

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)


def check_patch_type(content_type: str, resource) -> None:
    """415 for types the endpoint does not take (strategic on custom resources, unknown types)."""
    if content_type not in PATCH_TYPES:
        raise errors.StatusError(415, "UnsupportedMediaType", "415: Unsupported Media Type", has_details=True)
    if content_type == STRATEGIC_PATCH and resource is not None and resource.crd:
        raise errors.unsupported_media_type(errors.PATCH_BODY_TYPES_CR)
    if content_type == APPLY_PATCH:
        raise errors.StatusError(
            415, "UnsupportedMediaType",
            "server-side apply (application/apply-patch+yaml) is not supported by this server yet; "
            "use client-side apply or a json, merge or strategic merge patch")


def apply(content_type: str, original: dict, patch: bytes, resource) -> object:
    from kubelite.patch import PatchError

    try:
        if content_type == JSON_PATCH:
            ops = _decode(patch)
            if not isinstance(ops, list):
                raise errors.bad_request(
                    "error decoding patch: json: cannot unmarshal object into Go value of type "
                    "[]handlers.jsonPatchOp")
            return _json_patch(original, ops)
        doc = _decode(patch)
        if not isinstance(doc, dict):
            raise errors.bad_request("error decoding patch: json: cannot unmarshal "
                                     f"{json_kind(doc)} into Go value of type map[string]interface {{}}")
        if content_type == MERGE_PATCH:
            return _merge_patch(original, doc)
        if content_type == STRATEGIC_PATCH:
            return _strategic(original, doc, resource)
    except PatchError as err:
        if content_type == JSON_PATCH:
            raise errors.StatusError(422, "Invalid", "the server rejected our request due to an error in our "
                                     "request", has_details=True) from None
        message = str(err)
        if err.path and message.endswith(f" (at {err.path})"):
            message = message[: -len(f" (at {err.path})")]  # the path is kubelite's addition
        raise errors.server_error(message) from None
    raise errors.StatusError(415, "UnsupportedMediaType", "415: Unsupported Media Type", has_details=True)


def _decode(patch: bytes):
    try:
        return json.loads(patch)
    except (ValueError, UnicodeDecodeError) as err:
        text = "unexpected end of JSON input" if not patch.strip() or "Expecting" in str(err) and \
            err.pos >= len(patch.strip()) else str(err)
        raise errors.bad_request(f"error decoding patch: {text}") from None


def _json_patch(original, ops):
    from kubelite.patch import json_patch

    return json_patch.apply(original, ops, kubectl_compat=True)


def _merge_patch(original, doc):
    try:
        from kubelite.patch import merge_patch
    except ImportError:
        return _rfc7386(original, doc)
    return merge_patch.apply(original, doc)


def _rfc7386(target, patch):
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _rfc7386(result.get(key), value)
    return result


def _strategic(original, doc, resource):
    from kubelite.patch import strategic
    from kubelite.schema import for_kind

    schema = for_kind(resource.api_version, resource.kind) if resource is not None else None
    return strategic.apply(original, doc, schema)
