"""Dotted field paths of vars and replacements: `spec.containers[0].image`,
`spec.template.spec.containers.[name=app].image`, `metadata.annotations.[a.b/c]`."""
from __future__ import annotations

import re

from .errors import KustomizeError


def parse(path: str) -> list[str]:
    parts, cur, depth = [], [], 0
    for c in path:
        if c == "[":
            if depth == 0 and cur:
                parts.append("".join(cur))
                cur = []
            depth += 1
            cur.append(c)
        elif c == "]":
            depth -= 1
            cur.append(c)
        elif c == "." and depth == 0:
            if cur:
                parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if cur:
        parts.append("".join(cur))
    out = []
    for p in parts:
        if p.startswith("[") and p.endswith("]") and "=" not in p and not p[1:-1].lstrip("-").isdigit():
            out.append(p[1:-1])
        elif p.startswith("[") and p.endswith("]") and p[1:-1].lstrip("-").isdigit():
            out.append(p[1:-1])
        else:
            out.append(p)
    return out


def _match_element(item: object, selector: str) -> bool:
    key, _, value = selector[1:-1].partition("=")
    return isinstance(item, dict) and _s(item.get(key)) == value


def _s(v: object) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def lookup(obj: object, segments: list[str]) -> list:
    """All values the path reaches."""
    nodes = [obj]
    for seg in segments:
        nxt = []
        for node in nodes:
            if seg.startswith("[") and "=" in seg and isinstance(node, list):
                nxt.extend(i for i in node if _match_element(i, seg))
            elif seg == "*" and isinstance(node, list):
                nxt.extend(node)
            elif seg == "*" and isinstance(node, dict):
                nxt.extend(node.values())
            elif isinstance(node, list) and re.fullmatch(r"-?\d+", seg):
                i = int(seg)
                if 0 <= i < len(node):
                    nxt.append(node[i])
            elif isinstance(node, dict) and seg in node:
                nxt.append(node[seg])
        nodes = nxt
    return nodes


def set_value(obj: object, segments: list[str], fn, create: bool = False) -> int:
    """Replace every value the path reaches by fn(old); returns how many were set."""
    if not segments:
        return 0
    count = 0
    seg, rest = segments[0], segments[1:]
    if isinstance(obj, list):
        if seg.startswith("[") and "=" in seg:
            matched = False
            for item in obj:
                if _match_element(item, seg):
                    matched = True
                    count += set_value(item, rest, fn, create) if rest else 0
            if not matched and create and rest:
                key, _, value = seg[1:-1].partition("=")
                item = {key: value}
                obj.append(item)
                count += set_value(item, rest, fn, create)
            return count
        if seg == "*":
            for i, item in enumerate(obj):
                if rest:
                    count += set_value(item, rest, fn, create)
                else:
                    obj[i] = fn(item)
                    count += 1
            return count
        if re.fullmatch(r"-?\d+", seg):
            i = int(seg)
            if 0 <= i < len(obj):
                if rest:
                    return set_value(obj[i], rest, fn, create)
                obj[i] = fn(obj[i])
                return 1
            return 0
        return 0
    if not isinstance(obj, dict):
        return 0
    if seg == "*":
        for k in list(obj):
            if rest:
                count += set_value(obj[k], rest, fn, create)
            else:
                obj[k] = fn(obj[k])
                count += 1
        return count
    if not rest:
        if seg in obj or create:
            obj[seg] = fn(obj.get(seg))
            return 1
        return 0
    child = obj.get(seg)
    if child is None:
        if not create:
            return 0
        child = [] if rest[0].startswith("[") and "=" in rest[0] else {}
        obj[seg] = child
    return set_value(child, rest, fn, create)
