"""The describer for every other kind: name, namespace, labels, annotations, then every field
of the object as nested `Smart Label:  value` lines, as kubectl's generic describer does."""
from __future__ import annotations

import re

from kubelite.describe import parts
from kubelite.describe.writer import Writer

SKIPPED = {".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations",
           ".metadata.managedFields"}
ACRONYMS = {"API", "URL", "UID", "OSB", "GUID"}


def generic(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    m = parts.meta(obj)
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    if m.get("namespace"):
        w.write(0, f"Namespace:\t{m['namespace']}\n")
    parts.labels_multiline(w, "Labels", m.get("labels"))
    parts.annotations_multiline(w, "Annotations", m.get("annotations"))
    _content(w, 0, obj, "")
    parts.events(w, related.get("events"), now)
    return w


def _content(w: Writer, level: int, content: dict, prefix: str) -> None:
    for key in sorted(content):
        path = f"{prefix}.{key}"
        if path in SKIPPED:
            continue
        value = content[key]
        if isinstance(value, dict):
            w.write(level, f"{smart_label(key)}:\n")
            _content(w, level + 1, value, path)
        elif isinstance(value, list):
            w.write(level, f"{smart_label(key)}:\n")
            for child in value:
                if isinstance(child, dict):
                    _content(w, level + 1, child, path)
                else:
                    w.write(level + 1, f"{parts.go_value(child)}\n")
        else:
            w.write(level, f"{smart_label(key)}:\t{parts.go_value(value)}\n")


def smart_label(field: str) -> str:
    """`creationTimestamp` -> `Creation Timestamp`, `apiVersion` -> `API Version`; names with
    characters other than letters and `-` stay as they are."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    words = []
    for part in camel_split(field):
        if part == "_":
            continue
        words.append(part.upper() if part.upper() in ACRONYMS else part[:1].upper() + part[1:])
    return " ".join(words)


def camel_split(text: str) -> list[str]:
    """Runs of lower case, upper case, digits and others, with an upper-case run's last letter
    moved to a following lower-case run (HTTPServer -> HTTP Server)."""
    runs: list[list[str]] = []
    last = None
    for ch in text:
        kind = 1 if ch.islower() else 2 if ch.isupper() else 3 if ch.isdigit() else 4
        if kind == last:
            runs[-1].append(ch)
        else:
            runs.append([ch])
        last = kind
    for i in range(len(runs) - 1):
        if runs[i][0].isupper() and runs[i + 1][0].islower():
            runs[i + 1].insert(0, runs[i].pop())
    return ["".join(r) for r in runs if r]
