"""Applying a PATCH body to the stored object, by Content-Type, with kube-apiserver's errors.

The patch algorithms live in kubelite.patch; this module only chooses one and translates
its failures into API Status errors.
"""
from __future__ import annotations

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


MAX_JSON_PATCH_OPERATIONS = 10000  # kube-apiserver's maxJSONPatchOperations
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024  # kube-apiserver's JSONPatchMaxCopyBytes

# Strategic merge patch errors kube-apiserver answers as a client's mistake (the rest are 500).
_SMP_BAD_REQUEST = frozenset({
    "invalid JSON document", "invalid patch format of primitive list", "invalid patch format of retainKeys",
    "invalid patch format of setElementOrder list", "strategic merge patch format is not supported"})
_SMP_INVALID = frozenset({"lists of lists are not supported", "patch content doesn't match retainKeys list"})


def apply(content_type: str, original: dict, patch: bytes, resource, doc: object = None) -> object:
    """`patch` applied to `original`; `doc`: the patch already decoded (decode(patch)), when
    the caller has it (a merge or strategic patch)."""
    from kubelite.patch import PatchError

    try:
        if content_type == JSON_PATCH:
            ops = _decode(patch)
            if not isinstance(ops, list):
                raise errors.bad_request(
                    "error decoding patch: json: cannot unmarshal object into Go value of type "
                    "[]handlers.jsonPatchOp")
            if len(ops) > MAX_JSON_PATCH_OPERATIONS:
                raise errors.StatusError(
                    413, "RequestEntityTooLarge", "Request entity too large: The allowed maximum operations "
                    f"in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
            return _json_patch(original, ops)
        if doc is None:
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
            raise rejected() from None
        raise _strategic_error(err) from None
    raise errors.StatusError(415, "UnsupportedMediaType", "415: Unsupported Media Type", has_details=True)


def rejected() -> errors.StatusError:
    """The 422 of a generic server response (the library's message is not sent)."""
    return errors.StatusError(422, "Invalid", "the server rejected our request due to an error in our request",
                              has_details=True)


def _strategic_error(err) -> errors.StatusError:
    """kube-apiserver's status for a strategic merge patch failure: by which error it is."""
    message = getattr(err, "message", None) or str(err)
    if err.path and message.endswith(f" (at {err.path})"):
        message = message[: -len(f" (at {err.path})")]  # the path is kubelite's addition
    if message in _SMP_BAD_REQUEST:
        return errors.bad_request(message)
    if message in _SMP_INVALID:
        return rejected()
    return errors.server_error(message)


def decode(patch: bytes):
    """The JSON value of a patch body (400 when it is not JSON)."""
    return _decode(patch)


def _decode(patch: bytes):
    from kubelite.server.handlers import jsonbody

    try:
        return jsonbody.loads(patch)
    except jsonbody.JSONBodyError as err:
        raise errors.bad_request(f"error decoding patch: {err}") from None


def _json_patch(original, ops):
    from kubelite.patch import json_patch

    return json_patch.apply(original, ops, kubectl_compat=True, copy_limit=JSON_PATCH_MAX_COPY_BYTES)


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
