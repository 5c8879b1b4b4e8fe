"""AdmissionReview v1: the request a webhook receives and the checks of its answer.

The texts of the checks are kube-apiserver's (VerifyAdmissionResponse), so that the error a
client sees for a misbehaving webhook reads as it would on a real cluster.
"""
from __future__ import annotations

import base64
import binascii

from kubelite.schema.goorder import as_served
from kubelite.server.admissionrequest import request_fields

API_VERSION = "admission.k8s.io/v1"


class InvalidResponse(Exception):
    """The webhook answered, but not with a usable AdmissionReview."""


def request(uid: str, attr, invocation, obj: dict | None, old: dict | None) -> dict:
    """The AdmissionReview sent for `attr`, presented as `invocation`'s group/version/kind (`obj`
    and `old` already in that version)."""
    fields = request_fields(attr, invocation.group, invocation.version, invocation.resource, invocation.kind)
    body = {"uid": uid}
    for key, value in fields.items():
        if key == "dryRun":  # the objects come before dryRun in Go's AdmissionRequest
            body["object"] = as_served(obj) if obj is not None else None
            body["oldObject"] = as_served(old) if old is not None else None
        body[key] = value
    body.setdefault("options", None)
    return {"kind": "AdmissionReview", "apiVersion": API_VERSION, "request": body}


def new_uid() -> str:
    from kubelite.uuids import uuid4

    return uuid4()


def verify(uid: str, review, mutating: bool) -> dict:
    """The response of a decoded AdmissionReview, or InvalidResponse with kube-apiserver's text."""
    if not isinstance(review, dict):
        raise InvalidResponse("webhook response was absent")
    response = review.get("response")
    if not isinstance(response, dict):
        raise InvalidResponse("webhook response was absent")
    if str(response.get("uid") or "") != uid:
        raise InvalidResponse(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    version = str(review.get("apiVersion") or "")
    group, _, ver = version.rpartition("/")
    kind = str(review.get("kind") or "")
    if (version, kind) != (API_VERSION, "AdmissionReview"):
        raise InvalidResponse("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
                              f"got {group}/{ver}, Kind={kind}")
    patch, patch_type = response.get("patch"), response.get("patchType")
    if mutating:
        if patch and patch_type is None:
            raise InvalidResponse("webhook returned response.patch but not response.patchType")
        if not patch and patch_type is not None:
            raise InvalidResponse("webhook returned response.patchType but not response.patch")
        if patch_type is not None and not patch_type:
            raise InvalidResponse(f'webhook returned invalid response.patchType of "{patch_type}"')
    else:
        if patch:
            raise InvalidResponse("validating webhook may not return response.patch")
        if patch_type is not None:
            raise InvalidResponse("validating webhook may not return response.patchType")
    return response


def patch_bytes(response: dict) -> bytes:
    """The response's patch ([]byte: base64 in JSON); ValueError when it is not base64."""
    patch = response.get("patch")
    if not patch:
        return b""
    if not isinstance(patch, str):
        raise ValueError("json: cannot unmarshal patch into Go struct field of type []uint8")
    try:
        return base64.b64decode(patch, validate=True)
    except (binascii.Error, ValueError) as err:
        raise ValueError(f"illegal base64 data: {err}") from None
