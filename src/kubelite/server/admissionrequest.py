"""The AdmissionRequest of an admission attempt, as kube-apiserver builds it for webhooks (in
AdmissionReview v1) and for CEL expressions (the `request` variable): Go's field order and
omitempty, without its objects."""
from __future__ import annotations

from typing import Any


def request_fields(attr, group: str, version: str, resource: str, kind: str) -> dict:
    """`attr` matched as `group/version` `resource` (`kind`); the request's own in request*."""
    user = attr.user.to_api() if hasattr(attr.user, "to_api") else {"username": str(attr.user or "")}
    out: dict[str, Any] = {
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": resource},
    }
    if attr.subresource:
        out["subResource"] = attr.subresource
    out["requestKind"] = {"group": attr.group, "version": attr.version, "kind": attr.kind}
    out["requestResource"] = {"group": attr.group, "version": attr.version, "resource": attr.resource}
    if attr.subresource:
        out["requestSubResource"] = attr.subresource
    if attr.name:
        out["name"] = attr.name
    if attr.namespace:
        out["namespace"] = attr.namespace
    out["operation"] = attr.operation
    out["userInfo"] = user
    out["dryRun"] = bool(attr.dry_run)
    if attr.options:
        out["options"] = attr.options
    return out
