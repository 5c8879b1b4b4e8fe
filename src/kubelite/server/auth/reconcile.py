"""RBAC reconciliation, as kubectl's `auth reconcile` and kube-apiserver's bootstrap policy do it
(k8s.io/component-helpers/auth/rbac/reconciliation): pure functions from an existing role or
binding and the expected one to what should be stored.

A role gains the rules (broken down into one-verb pieces) and aggregation selectors it lacks, a
binding the subjects it lacks; with remove_extra the object becomes exactly the expected one. A
binding whose roleRef differs must be created again (roleRef is immutable). Labels and
annotations are merged, the expected ones winning. Objects annotated
rbac.authorization.kubernetes.io/autoupdate=false are `protected`: callers report, not write.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from kubelite.server.auth import rules as policy

AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"


@dataclass
class Result:
    obj: dict
    operation: str = "none"  # none | create | update | recreate
    protected: bool = False
    missing_rules: list = field(default_factory=list)
    extra_rules: list = field(default_factory=list)
    missing_subjects: list = field(default_factory=list)
    extra_subjects: list = field(default_factory=list)


def computed_role(existing: dict, expected: dict, remove_extra: bool) -> Result:
    result = Result(copy.deepcopy(existing), protected=opted_out(existing))
    _merge_metadata(result, existing, expected)
    if expected.get("aggregationRule") is None or existing.get("aggregationRule") is None:
        result.extra_rules = _uncovered(rules_of(expected), rules_of(existing))
    result.missing_rules = _uncovered(rules_of(existing), rules_of(expected))
    if not remove_extra and result.missing_rules:
        result.obj["rules"] = _stored(rules_of(result.obj) + result.missing_rules)
        result.operation = "update"
    elif remove_extra and (result.missing_rules or result.extra_rules):
        result.obj["rules"] = _stored(rules_of(expected))
        result.operation = "update"
    want, have = expected.get("aggregationRule"), existing.get("aggregationRule")
    missing = _uncovered_selectors(have, want)
    extra = _uncovered_selectors(want, have)
    if want is None and have is not None:
        result.obj.pop("aggregationRule", None)
        result.operation = "update"
    elif not remove_extra and missing:
        rule = result.obj.get("aggregationRule") or {}
        rule["clusterRoleSelectors"] = list(rule.get("clusterRoleSelectors") or []) + missing
        result.obj["aggregationRule"] = rule
        result.operation = "update"
    elif remove_extra and (missing or extra):
        result.obj["aggregationRule"] = copy.deepcopy(want)
        result.operation = "update"
    return result


def rules_of(obj: dict) -> list[dict]:
    return [policy.normalized(r) for r in obj.get("rules") or []]


def _stored(items: list[dict]) -> list[dict]:
    """Rules or subjects as the API stores them: empty fields left out (a rule's verbs always kept)."""
    return [{k: v for k, v in item.items() if v or k == "verbs"} for item in items]


def _uncovered(owner: list[dict], wanted: list[dict]) -> list[dict]:
    """The one-verb pieces of `wanted` no rule of `owner` covers (RBAC's Covers)."""
    pieces = [piece for r in wanted for piece in policy.breakdown(r)]
    return [p for p in pieces if not any(policy.covers(o, p) for o in owner)]


def _uncovered_selectors(owner, servant) -> list:
    if servant is None:
        return []
    if owner is None:
        return list(servant.get("clusterRoleSelectors") or [])
    have = owner.get("clusterRoleSelectors") or []
    return [s for s in servant.get("clusterRoleSelectors") or [] if not any(_same_selector(h, s) for h in have)]


def _same_selector(a: dict, b: dict) -> bool:
    # semantic equality: an empty map or list is the same as an absent one
    def norm(s):
        return {"matchLabels": s.get("matchLabels") or {}, "matchExpressions": s.get("matchExpressions") or []}
    return norm(a or {}) == norm(b or {})


def computed_binding(existing: dict, expected: dict, remove_extra: bool) -> Result:
    protected = opted_out(existing)
    if _role_ref(expected) != _role_ref(existing):
        return Result(expected, "recreate", protected=protected)
    result = Result(copy.deepcopy(existing), protected=protected)
    _merge_metadata(result, existing, expected)
    want, have = subjects_of(expected), subjects_of(existing)
    result.missing_subjects = _only_in(want, have)
    result.extra_subjects = _only_in(have, want)
    if not remove_extra and result.missing_subjects:
        result.obj["subjects"] = _stored(have + result.missing_subjects)
        result.operation = "update"
    elif remove_extra and (result.missing_subjects or result.extra_subjects):
        result.obj["subjects"] = _stored(want)
        result.operation = "update"
    return result


def subjects_of(obj: dict) -> list[dict]:
    # compared field by field as Go structs are: an absent field is the empty string
    return [{k: str(s.get(k) or "") for k in ("kind", "apiGroup", "name", "namespace")}
            for s in obj.get("subjects") or []]


def _role_ref(obj: dict) -> tuple:
    ref = obj.get("roleRef") or {}
    return tuple(str(ref.get(k) or "") for k in ("apiGroup", "kind", "name"))


def _only_in(first: list[dict], second: list[dict]) -> list[dict]:
    out = []
    for s in first:
        if s not in second and s not in out:
            out.append(s)
    return out


def opted_out(existing: dict) -> bool:
    return ((existing.get("metadata") or {}).get("annotations") or {}).get(AUTOUPDATE) == "false"


def _merge_metadata(result: Result, existing: dict, expected: dict) -> None:
    """The file's labels and annotations win over the existing ones; a change means an update."""
    meta = result.obj.setdefault("metadata", {})
    for key in ("annotations", "labels"):
        have = (existing.get("metadata") or {}).get(key) or {}
        merged = {**have, **((expected.get("metadata") or {}).get(key) or {})}
        if merged:
            meta[key] = merged
        if merged != have:
            result.operation = "update"
