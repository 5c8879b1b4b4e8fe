"""RBAC authorization: Roles, ClusterRoles and their bindings, read from the store.

The policy is re-read whenever the store's revision moved (one range over the RBAC prefix), so a
binding created a moment ago applies to the next request. Members of system:masters are allowed
everything before RBAC is asked, as kube-apiserver's privileged-group authorizer does.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from kubelite.server.auth.attributes import Attributes
from kubelite.server.auth.user import UserInfo

PREFIX = "/registry/rbac.authorization.k8s.io/"
ALL = "*"


@dataclass
class Policy:
    roles: dict[tuple[str, str], dict] = field(default_factory=dict)  # (namespace, name) -> Role
    cluster_roles: dict[str, dict] = field(default_factory=dict)
    role_bindings: list[dict] = field(default_factory=list)
    cluster_role_bindings: list[dict] = field(default_factory=list)

    def rules_of(self, ref: dict, namespace: str) -> list[dict]:
        kind, name = ref.get("kind"), ref.get("name", "")
        role = self.cluster_roles.get(name) if kind == "ClusterRole" else self.roles.get((namespace, name))
        return [r for r in (role or {}).get("rules") or () if isinstance(r, dict)]


def load_policy(store, decoded: dict | None = None) -> Policy:
    """The policy stored now. `decoded` (key -> (revision, object)) keeps objects decoded by an
    earlier load: only what changed since is decoded again."""
    policy = Policy()
    seen: dict = {}
    for kv in store.range(PREFIX).kvs:
        parts = kv.key[len(PREFIX):].split("/")
        cached = (decoded or {}).get(kv.key)
        if cached is not None and cached[0] == kv.mod_revision:
            obj = cached[1]
        else:
            try:
                obj = json.loads(kv.value)
            except ValueError:
                continue
        seen[kv.key] = (kv.mod_revision, obj)
        if (obj.get("aggregationRule") or {}).get("clusterRoleSelectors"):
            obj = dict(obj)  # its rules are recomputed below: the cached object stays as stored
        if parts[0] == "clusterroles" and len(parts) == 2:
            policy.cluster_roles[parts[1]] = obj
        elif parts[0] == "roles" and len(parts) == 3:
            policy.roles[(parts[1], parts[2])] = obj
        elif parts[0] == "clusterrolebindings":
            policy.cluster_role_bindings.append(obj)
        elif parts[0] == "rolebindings" and len(parts) == 3:
            obj = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": parts[1]}}
            policy.role_bindings.append(obj)
    for _ in range(3):  # aggregated roles aggregate each other (admin takes edit's, edit view's)
        _aggregate(policy)
    if decoded is not None:
        decoded.clear()
        decoded.update(seen)
    return policy


def _aggregate(policy: Policy) -> None:
    """ClusterRoles with an aggregationRule hold the rules of the roles their selectors pick
    (what the clusterrole-aggregation controller writes into them), whatever is stored now."""
    from kubelite.server.admission.validation_meta import selector_matches

    for role in policy.cluster_roles.values():
        selectors = ((role.get("aggregationRule") or {}).get("clusterRoleSelectors")) or []
        if not selectors:
            continue
        rules = list(role.get("rules") or [])
        for selector in selectors:
            for other in policy.cluster_roles.values():
                labels = (other.get("metadata") or {}).get("labels") or {}
                if other is not role and selector_matches(selector, labels):
                    rules.extend(r for r in other.get("rules") or () if r not in rules)
        role["rules"] = rules


def subject_matches(subject: dict, user: UserInfo, binding_namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name", "")
    if kind == "User":
        return name == user.name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        namespace = subject.get("namespace") or binding_namespace
        return user.name == f"system:serviceaccount:{namespace}:{name}"
    return False


def describe_subject(subject: dict, binding_namespace: str) -> str:
    kind, name = subject.get("kind", ""), subject.get("name", "")
    if kind == "ServiceAccount":
        name = f"{name}/{subject.get('namespace') or binding_namespace}"
    return f"{kind} {json.dumps(name)}"


def rule_allows(attrs: Attributes, rule: dict) -> bool:
    verbs = rule.get("verbs") or ()
    if ALL not in verbs and attrs.verb not in verbs:
        return False
    if not attrs.resource_request:
        return any(_url_matches(u, attrs.path) for u in rule.get("nonResourceURLs") or ())
    groups = rule.get("apiGroups") or ()
    if ALL not in groups and attrs.api_group not in groups:
        return False
    if not any(_resource_matches(r, attrs.resource, attrs.subresource) for r in rule.get("resources") or ()):
        return False
    names = rule.get("resourceNames") or ()
    return not names or attrs.name in names


def _resource_matches(rule_resource: str, resource: str, subresource: str) -> bool:
    if rule_resource == ALL:
        return True
    combined = f"{resource}/{subresource}" if subresource else resource
    if rule_resource == combined:
        return True
    return bool(subresource) and rule_resource == f"*/{subresource}"


def _url_matches(rule_url: str, path: str) -> bool:
    if rule_url == ALL or rule_url == path:
        return True
    return rule_url.endswith("*") and path.startswith(rule_url[:-1])


class RBACAuthorizer:
    def __init__(self, store):
        self.store = store
        self._lock = threading.Lock()
        self._version: object = None  # the store's prefix_version of RBAC's group when last loaded
        self._policy = Policy()
        self._decoded: dict = {}

    def policy(self) -> Policy:
        version = self.store.prefix_version(PREFIX)  # moved by a write to a role or a binding
        with self._lock:
            if version != self._version:
                self._policy, self._version = load_policy(self.store, self._decoded), version
            return self._policy

    def authorize(self, attrs: Attributes) -> tuple[bool, str]:
        """(allowed, reason) as kube-apiserver's authorizer chain answers."""
        if attrs.user.is_master:
            return True, ""
        for source, rules in self._rules_for(attrs.user, attrs.namespace):
            if any(rule_allows(attrs, rule) for rule in rules):
                return True, f"RBAC: allowed by {source}"
        return False, ""

    def rules_for(self, user: UserInfo, namespace: str) -> list[dict]:
        """Every rule that applies to `user` in `namespace` (SelfSubjectRulesReview)."""
        out: list[dict] = []
        for _, rules in self._rules_for(user, namespace):
            out.extend(rules)
        return out

    def _rules_for(self, user: UserInfo, namespace: str):
        policy = self.policy()
        for binding in policy.cluster_role_bindings:
            subject = _matching_subject(binding, user, "")
            if subject is not None:
                ref = binding.get("roleRef") or {}
                source = (f"ClusterRoleBinding {json.dumps(binding['metadata'].get('name', ''))} of "
                          f"{ref.get('kind')} {json.dumps(ref.get('name', ''))} to {describe_subject(subject, '')}")
                yield source, policy.rules_of(ref, "")
        if not namespace:
            return
        for binding in policy.role_bindings:
            bns = binding["metadata"].get("namespace", "")
            if bns != namespace:
                continue
            subject = _matching_subject(binding, user, bns)
            if subject is not None:
                ref = binding.get("roleRef") or {}
                name = f"{binding['metadata'].get('name', '')}/{bns}"
                source = (f"RoleBinding {json.dumps(name)} of {ref.get('kind')} {json.dumps(ref.get('name', ''))} "
                          f"to {describe_subject(subject, bns)}")
                yield source, policy.rules_of(ref, bns)


def _matching_subject(binding: dict, user: UserInfo, namespace: str) -> dict | None:
    for subject in binding.get("subjects") or ():
        if isinstance(subject, dict) and subject_matches(subject, user, namespace):
            return subject
    return None
