"""Policy-rule arithmetic shared by the escalation check and `auth can-i --list`: breaking rules
into one-verb pieces, merging them back per resource, and whether owned rules cover a rule."""
from __future__ import annotations

import json

ALL = "*"


def rule(verbs=None, groups=None, resources=None, names=None, urls=None) -> dict:
    return {"verbs": list(verbs or []), "apiGroups": list(groups or []), "resources": list(resources or []),
            "resourceNames": list(names or []), "nonResourceURLs": list(urls or [])}


def normalized(raw: dict) -> dict:
    return rule(raw.get("verbs"), raw.get("apiGroups"), raw.get("resources"), raw.get("resourceNames"),
                raw.get("nonResourceURLs"))


def breakdown(r: dict) -> list[dict]:
    """One rule per group, resource, verb (and resource name); one per URL and verb."""
    out = []
    for group in r["apiGroups"]:
        for resource in r["resources"]:
            for verb in r["verbs"]:
                for name in r["resourceNames"] or [None]:
                    out.append(rule([verb], [group], [resource], [name] if name is not None else []))
    for url in r["nonResourceURLs"]:
        for verb in r["verbs"]:
            out.append(rule([verb], urls=[url]))
    return out


def compact(rules: list[dict]) -> list[dict]:
    """Rules on one group/resource(/name) merged into one holding all their verbs."""
    compacted, simple = [], {}
    for r in rules:
        if r["nonResourceURLs"] or len(r["apiGroups"]) != 1 or len(r["resources"]) != 1 or len(r["resourceNames"]) > 1:
            compacted.append(r)
            continue
        key = (r["apiGroups"][0], r["resources"][0], tuple(r["resourceNames"]))
        if key in simple:
            simple[key]["verbs"] += [v for v in r["verbs"] if v not in simple[key]["verbs"]]
        else:
            simple[key] = {**r, "verbs": list(r["verbs"])}
    return compacted + list(simple.values())


def covers(owner: dict, sub: dict) -> bool:
    """Whether `owner` allows everything `sub` does (RBAC's escalation check)."""
    def has_all(values, wanted):
        return all(w in values for w in wanted)

    verbs = ALL in owner["verbs"] or has_all(owner["verbs"], sub["verbs"])
    groups = ALL in owner["apiGroups"] or has_all(owner["apiGroups"], sub["apiGroups"])
    if sub["resourceNames"]:
        names = not owner["resourceNames"] or has_all(owner["resourceNames"], sub["resourceNames"])
    else:
        names = not owner["resourceNames"]
    return verbs and groups and names and _resources_cover(owner["resources"], sub["resources"]) \
        and _urls_cover(owner["nonResourceURLs"], sub["nonResourceURLs"])


def _resources_cover(owned: list[str], wanted: list[str]) -> bool:
    if ALL in owned:
        return True
    for resource in wanted:
        if resource in owned:
            continue
        base, slash, sub = resource.partition("/")
        if not slash or (f"*/{sub}" not in owned and f"{base}/*" not in owned):
            return False
    return True


def _urls_cover(owned: list[str], wanted: list[str]) -> bool:
    if ALL in owned:
        return True
    return all(any(o == w or (o.endswith("*") and w.startswith(o[:-1])) for o in owned) for w in wanted)


def compact_string(r: dict) -> str:
    """rbacv1helpers.CompactString: the non-empty fields, each as Go's %q of a string slice."""
    parts = [f"{label}:{go_quoted(r[key])}" for label, key in (
        ("APIGroups", "apiGroups"), ("Resources", "resources"), ("NonResourceURLs", "nonResourceURLs"),
        ("ResourceNames", "resourceNames"), ("Verbs", "verbs")) if r[key]]
    return "{" + ", ".join(parts) + "}"


def go_quoted(values) -> str:
    return "[" + " ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"
