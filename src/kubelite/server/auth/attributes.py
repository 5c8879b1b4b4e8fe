"""What a request asks to do, in authorization's terms (kube-apiserver's authorizer.Attributes)."""
from __future__ import annotations

from dataclasses import dataclass

from kubelite.server import errors
from kubelite.server.auth.user import UserInfo


@dataclass(frozen=True)
class Attributes:
    user: UserInfo
    verb: str
    resource_request: bool = True
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""


def from_request_info(user: UserInfo, info) -> Attributes:
    if not info.is_resource_request:
        return Attributes(user, info.verb, False, path=info.path)
    return Attributes(user, info.verb, True, info.api_group, info.api_version, info.namespace,
                      info.resource, info.subresource, info.name)


def forbidden_message(attrs: Attributes) -> str:
    """The sentence kube-apiserver's Forbidden responses carry."""
    who = _quote(attrs.user.name)
    if not attrs.resource_request:
        return f"User {who} cannot {attrs.verb} path {_quote(attrs.path)}"
    resource = attrs.resource + ("/" + attrs.subresource if attrs.subresource else "")
    text = f"User {who} cannot {attrs.verb} resource {_quote(resource)} in API group {_quote(attrs.api_group)}"
    if attrs.namespace:
        return f"{text} in the namespace {_quote(attrs.namespace)}"
    return f"{text} at the cluster scope"


def forbidden(attrs: Attributes, reason: str = "") -> errors.StatusError:
    detail = forbidden_message(attrs) + (f": {reason}" if reason else "")
    if not attrs.resource_request:
        return errors.forbidden("", "", "", detail)
    return errors.forbidden(attrs.api_group, attrs.resource, attrs.name, detail)


def _quote(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)
