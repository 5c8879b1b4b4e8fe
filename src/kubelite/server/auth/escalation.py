"""RBAC escalation prevention: a user may create or update a role only with permissions they
hold (or the `escalate` verb on it), and bind a role only if they hold its permissions (or the
`bind` verb on it). Members of system:masters may do anything, as in kube-apiserver.

Checked for creates, updates and patches of roles, cluster roles and their bindings, before the
request is dispatched (a patch is first applied as a dry run to see the object it would make);
the messages are kube-apiserver's.
"""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.auth import rules as policy
from kubelite.server.auth.attributes import Attributes

GROUP = "rbac.authorization.k8s.io"
ROLES = {"roles", "clusterroles"}
BINDINGS = {"rolebindings", "clusterrolebindings"}


def check(api, authorizer, request, info, user) -> None:
    """Raise 403 when `request` would grant permissions `user` does not hold."""
    if user.is_master or info.api_group != GROUP or info.subresource or request.method not in ("POST", "PUT", "PATCH"):
        return
    if info.resource not in ROLES | BINDINGS:
        return
    obj = _body(api, request, info)
    if obj is None:
        return  # undecodable: the handler answers the decoding error
    name = str((obj.get("metadata") or {}).get("name") or info.name)
    namespace = info.namespace
    if info.resource in ROLES:
        _check_role(authorizer, info, user, obj, name, namespace)
    else:
        _check_binding(authorizer, info, user, obj, name, namespace)


def _body(api, request, info) -> dict | None:
    """The object the request would store; None when it is malformed (the handler says why)."""
    from kubelite.server.core import WriteOptions
    from kubelite.server.handlers.decode import decode_object

    r = api.registry.lookup(info.api_group, info.api_version, info.resource)
    if r is None:
        return None
    try:
        if request.method == "PATCH":
            opts = WriteOptions(dry_run=True, field_manager="rbac-escalation-check", force=True)
            obj = api.patch(r, info.namespace, info.name, request.content_type, request.body, opts).obj
        else:
            obj = decode_object(request.body, request.content_type, r)[0]
    except (errors.StatusError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _allowed(authorizer, user, verb: str, resource: str, namespace: str, name: str) -> bool:
    return authorizer.authorize(Attributes(user, verb, True, GROUP, "", namespace, resource, "", name))[0]


def _check_role(authorizer, info, user, obj, name, namespace) -> None:
    if _allowed(authorizer, user, "escalate", info.resource, namespace, name):
        return
    if info.resource == "clusterroles" and obj.get("aggregationRule"):
        raise errors.forbidden(GROUP, info.resource, name, "must have cluster-admin privileges to use the "
                                                           "aggregationRule")
    wanted = [policy.normalized(r) for r in obj.get("rules") or () if isinstance(r, dict)]
    _confirm_no_escalation(authorizer, info, user, wanted, name, namespace)


def _check_binding(authorizer, info, user, obj, name, namespace) -> None:
    ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
    kind, role_name = ref.get("kind"), str(ref.get("name") or "")
    if kind not in ("Role", "ClusterRole"):
        return  # validation refuses it
    resource = "clusterroles" if kind == "ClusterRole" else "roles"
    if _allowed(authorizer, user, "bind", resource, namespace, role_name):
        return
    current = authorizer.policy()
    role = current.cluster_roles.get(role_name) if kind == "ClusterRole" else current.roles.get((namespace, role_name))
    if role is None:
        raise errors.forbidden(GROUP, info.resource, name, f'{kind.lower()}.{GROUP} "{role_name}" not found')
    wanted = [policy.normalized(r) for r in role.get("rules") or () if isinstance(r, dict)]
    _confirm_no_escalation(authorizer, info, user, wanted, name, namespace)


def _confirm_no_escalation(authorizer, info, user, wanted, name, namespace) -> None:
    owned = [policy.normalized(r) for r in authorizer.rules_for(user, namespace)]
    missing = [piece for r in wanted for piece in policy.breakdown(r)
               if not any(policy.covers(o, piece) for o in owned)]
    if not missing:
        return
    described = sorted({policy.compact_string(r) for r in policy.compact(missing)})
    message = (f"user {policy.go_quoted([user.name])[1:-1]} (groups={policy.go_quoted(user.groups)}) is attempting "
               "to grant RBAC permissions not currently held:\n" + "\n".join(described))
    raise errors.forbidden(GROUP, info.resource, name, message)
