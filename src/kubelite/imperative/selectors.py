"""Label selector text -> LabelSelector (metav1.ParseToLabelSelector)."""
from __future__ import annotations

import re

from .errors import ImperativeError

_REQUIREMENT = re.compile(
    r"\s*(?P<neg>!)?\s*(?P<key>[^\s!=(),<>]+)\s*"
    r"(?:(?P<op>==|=|!=|\bnotin\b|\bin\b)\s*(?P<rest>\([^)]*\)|[^\s,()]*))?\s*")


def _split_requirements(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def parse_requirements(text: str) -> list[tuple[str, str, list[str]]]:
    """(key, operator, values) sorted by key; operators =, ==, !=, in, notin, exists, !."""
    reqs = []
    if not text.strip():
        return reqs
    for part in _split_requirements(text):
        m = _REQUIREMENT.fullmatch(part)
        if not m or (m.group("neg") and m.group("op")):
            raise ImperativeError(f"unable to parse requirement: {part.strip()}")
        key, op = m.group("key"), m.group("op")
        if op is None:
            reqs.append((key, "!" if m.group("neg") else "exists", []))
            continue
        rest = m.group("rest")
        if op in ("in", "notin"):
            if not rest.startswith("("):
                raise ImperativeError(f"found '{rest}', expected: '('")
            values = sorted({v.strip() for v in rest[1:-1].split(",")})
        else:
            values = [rest]
        reqs.append((key, op, values))
    return sorted(reqs, key=lambda r: r[0])


def parse_to_label_selector(text: str) -> dict:
    match_labels: dict = {}
    expressions: list[dict] = []
    operators = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}
    for key, op, values in parse_requirements(text):
        if op in ("=", "=="):
            match_labels[key] = values[0]
            continue
        if op not in operators:
            raise ImperativeError(f'"{op}" is not a valid label selector operator')
        entry: dict = {"key": key, "operator": operators[op]}
        if values:
            entry["values"] = values
        expressions.append(entry)
    out: dict = {}
    if match_labels:
        out["matchLabels"] = match_labels
    if expressions:
        out["matchExpressions"] = expressions
    return out
