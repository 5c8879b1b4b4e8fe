"""Impersonation: Impersonate-User/-Group/-Uid/-Extra-* headers, each checked against the
`impersonate` verb for the requester before the request runs as the impersonated user."""
from __future__ import annotations

import urllib.parse

from kubelite.server import errors
from kubelite.server.auth import user as users

USER = "impersonate-user"
GROUP = "impersonate-group"
UID = "impersonate-uid"
EXTRA = "impersonate-extra-"


def requested(headers: dict[str, str]) -> bool:
    for name in headers:  # (a loop, not any() over a generator: asked of every request)
        if name.startswith("impersonate-") and (name in _NAMES or name.startswith(EXTRA)):
            return True
    return False


_NAMES = (USER, GROUP, UID)


def _values(headers: dict[str, str], name: str) -> list[str]:
    # Repeated headers arrive joined with ", " (see app._read_request).
    value = headers.get(name)
    return [] if value is None else [v.strip() for v in value.split(", ")]


def impersonate(authorizer, requester: users.UserInfo, headers: dict[str, str]) -> users.UserInfo:
    """The user the request acts as; 403 for what the requester may not impersonate."""
    name = headers.get(USER, "").strip()
    groups = _values(headers, GROUP)
    uid = headers.get(UID, "").strip()
    extra = {}
    for header, value in headers.items():
        if header.startswith(EXTRA):
            key = urllib.parse.unquote(header[len(EXTRA):])
            extra[key] = tuple(v.strip() for v in value.split(", "))
    if not name:
        raise errors.bad_request("requested [" + ", ".join(
            f"{{{kind} {v}}}" for kind, v in [("Group", g) for g in groups] + ([("UID", uid)] if uid else []))
            + "] without impersonating a user")
    # (API group, resource, subresource, namespace, name) the requester must be allowed to impersonate
    account = users.split_service_account(name)
    if account is not None:
        checks = [("", "serviceaccounts", "", account[0], account[1])]
    else:
        checks = [("", "users", "", "", name)]
    checks += [("", "groups", "", "", g) for g in groups]
    checks += [("authentication.k8s.io", "userextras", key, "", v) for key, vals in extra.items() for v in vals]
    if uid:
        checks.append(("authentication.k8s.io", "uids", "", "", uid))
    from kubelite.server.auth.attributes import Attributes, forbidden

    for group, resource, subresource, namespace, target in checks:
        attrs = Attributes(requester, "impersonate", True, group, "", namespace, resource, subresource, target)
        allowed, _ = authorizer.authorize(attrs)
        if not allowed:
            raise forbidden(attrs)
    if account is not None:
        groups = groups + [g for g in (users.SERVICE_ACCOUNTS_GROUP, f"{users.SERVICE_ACCOUNTS_GROUP}:{account[0]}")
                           if g not in groups]
    if name == users.ANONYMOUS_NAME:
        if users.UNAUTHENTICATED not in groups:
            groups.append(users.UNAUTHENTICATED)
    elif users.AUTHENTICATED not in groups:
        groups.append(users.AUTHENTICATED)
    return users.UserInfo(name, uid, tuple(groups), extra)
