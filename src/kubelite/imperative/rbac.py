"""create role, clusterrole, rolebinding, clusterrolebinding."""
from __future__ import annotations

from typing import Callable

from .errors import ImperativeError
from .meta import head, object_meta

RBAC = "rbac.authorization.k8s.io"
RBAC_V1 = RBAC + "/v1"

VALID_RESOURCE_VERBS = ("*", "get", "delete", "list", "create", "update", "patch", "watch", "proxy",
                        "deletecollection", "use", "bind", "escalate", "impersonate")
VALID_NON_RESOURCE_VERBS = ("*", "get", "post", "put", "delete", "patch", "head", "options")
SPECIAL_VERBS = {
    "use": (("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")),
    "bind": ((RBAC, "roles"), (RBAC, "clusterroles")),
    "escalate": ((RBAC, "roles"), (RBAC, "clusterroles")),
    "impersonate": (("", "users"), ("", "serviceaccounts"), ("", "groups"), ("authentication.k8s.io", "userextras")),
}

# resolve(resource, group) -> (group, resource) of the server's mapping; raises ImperativeError if unknown
Resolver = Callable[[str, str], "tuple[str, str]"]


def unique(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def normalize_verbs(verbs: list[str]) -> list[str]:
    return ["*"] if "*" in verbs else unique(verbs)


def parse_resources(resources: list[str]) -> list[tuple[str, str, str]]:
    """``--resource`` values -> (resource, group, subresource); a bare ``*`` replaces all."""
    out = []
    for text in resources:
        base, _, sub = text.partition("/")
        resource, _, group = base.partition(".")
        if resource == "*" and "." not in base and "/" not in text:
            return [("*", "", "")]
        out.append((resource, group, sub))
    return out


def _resolve(resolve: Resolver | None, resource: str, group: str) -> tuple[tuple[str, str], Exception | None]:
    if resolve is None:
        return (group, resource), None
    try:
        return resolve(resource, group), None
    except ImperativeError as err:
        return (group, resource), err


def verb_warnings(verbs: list[str]) -> list[str]:
    return [f"Warning: '{v}' is not a standard resource verb" for v in verbs if v not in VALID_RESOURCE_VERBS]


def validate_resources(verbs: list[str], resources: list[tuple[str, str, str]], resolve: Resolver | None) -> None:
    for resource, group, _sub in resources:
        if not resource:
            raise ImperativeError("resource must be specified if apiGroup/subresource specified")
        if resource == "*":
            return
        (g, r), err = _resolve(resolve, resource, group)
        for verb in verbs:
            allowed = SPECIAL_VERBS.get(verb)
            if allowed is not None:
                if (g, r) not in allowed:
                    raise ImperativeError(f"can not perform '{verb}' on '{r}' in group '{g}'")
                err = None
        if err is not None:
            raise err


def policy_rules(verbs: list[str], resources: list[tuple[str, str, str]], resource_names: list[str],
                 non_resource_urls: list[str], resolve: Resolver | None) -> list[dict]:
    by_group: dict[str, list[str]] = {}
    for resource, group, sub in resources:
        (g, r), _ = _resolve(resolve, resource, group)
        if sub:
            r = r + "/" + sub
        names = by_group.setdefault(g, [])
        if r not in names:
            names.append(r)
    rules = []
    for g in sorted(by_group):
        rule: dict = {"verbs": list(verbs), "apiGroups": [g], "resources": by_group[g]}
        if resource_names:
            rule["resourceNames"] = list(resource_names)
        rules.append(rule)
    if non_resource_urls:
        rules.append({"verbs": list(verbs), "nonResourceURLs": list(non_resource_urls)})
    return rules


def create_role(name: str, verbs: list[str], resources: list[str], resource_names: list[str] = (), *,
                resolve: Resolver | None = None, namespace: str | None = None) -> dict:
    verbs = normalize_verbs(list(verbs))
    parsed = parse_resources(list(resources))
    if not verbs:
        raise ImperativeError("at least one verb must be specified")
    if not parsed:
        raise ImperativeError("at least one resource must be specified")
    validate_resources(verbs, parsed, resolve)
    obj = head(RBAC_V1, "Role", object_meta(name, namespace))
    obj["rules"] = policy_rules(verbs, parsed, unique(list(resource_names)), [], resolve)
    return obj


def create_cluster_role(name: str, verbs: list[str] = (), resources: list[str] = (),
                        resource_names: list[str] = (), non_resource_urls: list[str] = (),
                        aggregation_rule: dict | None = None, *, resolve: Resolver | None = None) -> dict:
    verbs = normalize_verbs(list(verbs))
    parsed = parse_resources(list(resources))
    resource_names = unique(list(resource_names))
    obj = head(RBAC_V1, "ClusterRole", object_meta(name))
    if aggregation_rule:
        if non_resource_urls or verbs or parsed or resource_names:
            raise ImperativeError("aggregation rule must be specified without nonResourceURLs, verbs, "
                                  "resources or resourceNames")
        obj["rules"] = None
        obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": dict(aggregation_rule)}]}
        return obj
    if not verbs:
        raise ImperativeError("at least one verb must be specified")
    if not parsed and not non_resource_urls:
        raise ImperativeError("one of resource or nonResourceURL must be specified")
    if parsed:
        validate_resources(verbs, parsed, resolve)
    for verb in verbs if non_resource_urls else ():
        if verb not in VALID_NON_RESOURCE_VERBS:
            raise ImperativeError(f"invalid verb: '{verb}' for nonResourceURL")
    for url in non_resource_urls:
        if url == "*":
            continue
        if not url.startswith("/"):
            raise ImperativeError("nonResourceURL should start with /")
        if "*" in url[:-1]:
            raise ImperativeError("nonResourceURL only supports wildcard matches when '*' is at the end")
    obj["rules"] = policy_rules(verbs, parsed, resource_names, list(non_resource_urls), resolve)
    return obj


def subjects(users: list[str], groups: list[str], service_accounts: list[str]) -> list[dict]:
    out = [{"kind": "User", "apiGroup": RBAC, "name": u} for u in users]
    out += [{"kind": "Group", "apiGroup": RBAC, "name": g} for g in groups]
    for sa in service_accounts:
        tokens = sa.split(":")
        if len(tokens) != 2 or not tokens[0] or not tokens[1]:
            raise ImperativeError("serviceaccount must be <namespace>:<name>")
        out.append({"kind": "ServiceAccount", "name": tokens[1], "namespace": tokens[0]})
    return out


def create_role_binding(name: str, *, role: str = "", cluster_role: str = "", users: list[str] = (),
                        groups: list[str] = (), service_accounts: list[str] = (),
                        namespace: str | None = None) -> dict:
    if bool(cluster_role) == bool(role):
        raise ImperativeError("exactly one of clusterrole or role must be specified")
    ref = {"apiGroup": RBAC, "kind": "Role" if role else "ClusterRole", "name": role or cluster_role}
    obj = head(RBAC_V1, "RoleBinding", object_meta(name, namespace))
    subs = subjects(list(users), list(groups), list(service_accounts))
    if subs:
        obj["subjects"] = subs
    obj["roleRef"] = ref
    return obj


def create_cluster_role_binding(name: str, cluster_role: str, *, users: list[str] = (), groups: list[str] = (),
                                service_accounts: list[str] = ()) -> dict:
    obj = head(RBAC_V1, "ClusterRoleBinding", object_meta(name))
    subs = subjects(list(users), list(groups), list(service_accounts))
    if subs:
        obj["subjects"] = subs
    obj["roleRef"] = {"apiGroup": RBAC, "kind": "ClusterRole", "name": cluster_role}
    return obj
