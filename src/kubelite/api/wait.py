"""`wait`'s conditions, as kubectl wait's --for spells them.

    delete                          the object is gone (or never was)
    create                          the object exists
    condition=Available             status.conditions[type=Available].status is "True"
    condition=Complete=false        ... is "False" (any value, compared without case)
    jsonpath={.status.phase}=Running   the JSONPath gives exactly that value
    jsonpath={.status.readyReplicas}   the JSONPath finds something

Like kubectl, a condition whose observedGeneration (or status.observedGeneration) is older
than metadata.generation does not count: it describes an earlier spec.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Condition:
    mode: str          # delete | create | condition | jsonpath
    name: str = ""     # the condition type or the JSONPath template
    value: str | None = None

    def describe(self) -> str:
        return {"delete": "delete", "create": "create"}.get(self.mode, self.mode)

    def met(self, obj: dict | None) -> bool:
        """Whether the object (None: absent) satisfies the condition."""
        if self.mode == "delete":
            return obj is None
        if obj is None:
            return False
        if self.mode == "create":
            return True
        if self.mode == "condition":
            return _condition_met(obj, self.name, self.value or "true")
        return _jsonpath_met(obj, self.name, self.value)


def parse(text: str) -> Condition:
    """A --for value as a Condition; ValueError with kubectl's message for anything else."""
    lowered = text.lower()
    if lowered == "delete":
        return Condition("delete")
    if lowered == "create":
        return Condition("create")
    if lowered.startswith("condition="):
        rest = text[len("condition="):]
        name, sep, value = rest.partition("=")
        if not name:
            raise ValueError(f"unrecognized condition: {text!r}")
        return Condition("condition", name, value if sep else "true")
    if lowered.startswith("jsonpath="):
        return _jsonpath(text[len("jsonpath="):])
    raise ValueError(f"unrecognized condition: {text!r}")


def _jsonpath(rest: str) -> Condition:
    from kubelite.manifest.jsonpath import JSONPathError, parse as parse_template

    rest = rest.strip("'\"") if rest[:1] in "'\"" and rest[-1:] == rest[:1] else rest
    close = rest.rfind("}")
    if not rest.startswith("{") or close < 0:
        template, value = rest, None
    else:
        template, tail = rest[:close + 1], rest[close + 1:]
        if tail and not tail.startswith("="):
            raise ValueError(f"unrecognized condition: 'jsonpath={rest}'")
        value = tail[1:] if tail else None
    if not template.startswith("{"):
        template = "{" + template + "}"
    try:
        parse_template(template)
    except JSONPathError as err:
        raise ValueError(f"unrecognized condition: 'jsonpath={rest}': {err}") from None
    return Condition("jsonpath", template, value)


def _condition_met(obj: dict, kind: str, value: str) -> bool:
    status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
    generation = (obj.get("metadata") or {}).get("generation")
    for cond in status.get("conditions") or ():
        if not isinstance(cond, dict) or str(cond.get("type", "")).lower() != kind.lower():
            continue
        if str(cond.get("status", "")).lower() != value.lower():
            continue
        observed = cond.get("observedGeneration", status.get("observedGeneration"))
        if isinstance(observed, int) and isinstance(generation, int) and observed < generation:
            continue
        return True
    return False


def _jsonpath_met(obj: dict, template: str, value: str | None) -> bool:
    from kubelite.manifest.jsonpath import JSONPathError, find_results, format_results

    try:
        results = find_results(template, obj, allow_missing_keys=True)
    except JSONPathError:
        return False
    found = [v for group in results for v in group]
    if value is None:
        return bool(found)
    if len(found) != 1:
        return False
    return format_results([found]) == value
