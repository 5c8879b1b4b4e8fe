"""Patch and replacement target selectors: gvk/name/namespace regexes and label selectors."""
from __future__ import annotations

import re

from .errors import KustomizeError
from .resmap import ResMap
from .resource import Resource


def _rx(value: object):
    if value in (None, ""):
        return None
    try:
        return re.compile(f"^(?:{value})$")
    except re.error as exc:
        raise KustomizeError(f"invalid selector regex {value!r}: {exc}") from None


def parse_label_selector(text: str) -> list:
    """A label selector string as requirements (key, op, values)."""
    reqs = []
    for part in _split_top(text):
        part = part.strip()
        if not part:
            continue
        m = re.match(r"^(\S+)\s+(in|notin)\s+\((.*)\)$", part)
        if m:
            values = [v.strip() for v in m.group(3).split(",") if v.strip()]
            reqs.append((m.group(1), m.group(2), values))
        elif part.startswith("!"):
            reqs.append((part[1:].strip(), "!", []))
        elif "!=" in part:
            k, _, v = part.partition("!=")
            reqs.append((k.strip(), "!=", [v.strip()]))
        elif "==" in part:
            k, _, v = part.partition("==")
            reqs.append((k.strip(), "=", [v.strip()]))
        elif "=" in part:
            k, _, v = part.partition("=")
            reqs.append((k.strip(), "=", [v.strip()]))
        else:
            reqs.append((part, "exists", []))
    return reqs


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def labels_match(selector: str | None, labels: dict) -> bool:
    if not selector:
        return True
    for key, op, values in parse_label_selector(selector):
        present = key in labels
        value = str(labels.get(key)) if present else None
        if op == "=" and value != values[0]:
            return False
        if op == "!=" and present and value == values[0]:
            return False
        if op == "in" and value not in values:
            return False
        if op == "notin" and present and value in values:
            return False
        if op == "!" and present:
            return False
        if op == "exists" and not present:
            return False
    return True


class Selector:
    def __init__(self, raw: dict | None) -> None:
        raw = raw or {}
        if not isinstance(raw, dict):
            raise KustomizeError(f"invalid target selector {raw!r}")
        gvk = raw.get("gvk") if isinstance(raw.get("gvk"), dict) else {}
        self.raw = raw
        self.group = _rx(raw.get("group", gvk.get("group")))
        self.version = _rx(raw.get("version", gvk.get("version")))
        self.kind = _rx(raw.get("kind", gvk.get("kind")))
        self.name = _rx(raw.get("name"))
        self.namespace = _rx(raw.get("namespace"))
        self.label_selector = raw.get("labelSelector")
        self.annotation_selector = raw.get("annotationSelector")

    def matches(self, res: Resource) -> bool:
        cur, org = res.cur_id(), res.org_id()
        if self.namespace and not (self.namespace.match(org.effective_namespace()) or self.namespace.match(cur.effective_namespace())):
            return False
        if self.name and not (self.name.match(org.name) or self.name.match(cur.name)):
            return False
        gvk = res.gvk
        for rx, value in ((self.group, gvk.group), (self.version, gvk.version), (self.kind, gvk.kind)):
            if rx and not rx.match(value):
                return False
        if not labels_match(self.label_selector, res.labels()):
            return False
        if not labels_match(self.annotation_selector, res.annotations()):
            return False
        return True

    def select(self, resmap: ResMap) -> list[Resource]:
        return [r for r in resmap if self.matches(r)]
