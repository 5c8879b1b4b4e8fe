"""Label and field selectors as kube-apiserver parses and applies them.

parse_label_selector / parse_field_selector return a predicate over an object, or raise
StatusError(400) with the apiserver's wording.
"""
from __future__ import annotations

import re
from typing import Callable

from kubelite.server.errors import bad_request

Predicate = Callable[[dict], bool]

_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt")

# The lexer's special characters; everything else (up to whitespace) is an identifier.
_SPECIAL = set("!=(),<>")


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in _SPECIAL:
            j = i
            while j < len(text) and text[j] in _SPECIAL and text[j] not in "(),":
                j += 1
            if j == i:
                j = i + 1
            out.append(("op", text[i:j]))
            i = j
            continue
        j = i
        while j < len(text) and not text[j].isspace() and text[j] not in _SPECIAL:
            j += 1
        out.append(("id", text[i:j]))
        i = j
    return out


def _check_key(key: str) -> None:
    prefix, _, name = key.rpartition("/")
    problems = []
    if not name or len(name) > 63 or not _NAME.match(name):
        problems.append(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
            "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        )
    if "/" in key and (not prefix or len(prefix) > 253 or not _PREFIX.match(prefix)):
        problems.append("prefix part a lowercase RFC 1123 subdomain")
    if problems:
        raise bad_request(f'unable to parse requirement: key: Invalid value: "{key}": ' + problems[0])


def _check_value(value: str) -> None:
    if len(value) > 63:
        raise bad_request(
            f'unable to parse requirement: values[0][{value}]: Invalid value: "{value}": '
            "must be no more than 63 characters"
        )
    if not _VALUE.match(value):
        raise bad_request(
            f'unable to parse requirement: values[0][{value}]: Invalid value: "{value}": a valid label '
            "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
            "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        )


def parse_label_selector(text: str | None) -> Predicate | None:
    """None for an empty selector (everything matches)."""
    if not text or not text.strip():
        return None
    toks = _tokens(text)
    reqs: list[Predicate] = []
    i = 0

    def peek(k=0):
        return toks[i + k] if i + k < len(toks) else ("end", "")

    while True:
        kind, val = peek()
        negate = False
        if kind == "op" and val == "!":
            negate = True
            i += 1
            kind, val = peek()
        if kind != "id":
            raise bad_request(f"unable to parse requirement: found '{val}', expected: identifier")
        key = val
        i += 1
        _check_key(key)
        kind, op = peek()
        if negate:
            if kind not in ("end",) and not (kind == "op" and op == ","):
                raise bad_request(f"unable to parse requirement: found '{op}', expected: ',' or 'end of string'")
            reqs.append(_not_exists(key))
        elif kind == "end" or (kind == "op" and op == ","):
            reqs.append(_exists(key))
        else:
            i += 1
            if kind == "id" and op in ("in", "notin"):
                values = _parse_set(toks, i, text)
                i = values[1]
                for v in values[0]:
                    _check_value(v)
                reqs.append(_in(key, set(values[0])) if op == "in" else _notin(key, set(values[0])))
            elif kind == "op" and op in ("=", "==", "!="):
                k2, v2 = peek()
                value = ""
                if k2 == "id":
                    value = v2
                    i += 1
                    if peek()[0] == "id":
                        raise bad_request(
                            f"unable to parse requirement: found '{peek()[1]}', expected: ',' or 'end of string'"
                        )
                elif k2 == "op" and v2 != ",":
                    raise bad_request(f"unable to parse requirement: found '{v2}', expected: identifier")
                _check_value(value)
                reqs.append(_notin(key, {value}) if op == "!=" else _in(key, {value}))
            elif kind == "op" and op in (">", "<"):
                k2, v2 = peek()
                i += 1
                try:
                    bound = int(v2)
                except ValueError:
                    raise bad_request(
                        f"unable to parse requirement: values[0]: Invalid value: \"{v2}\": for 'Gt', 'Lt' "
                        "operators, the value must be an integer"
                    ) from None
                reqs.append(_compare(key, bound, op))
            else:
                raise bad_request(
                    f"unable to parse requirement: found '{op}', expected: in, notin, =, ==, !=, gt, lt"
                )
        kind, val = peek()
        if kind == "end":
            break
        if kind == "op" and val == ",":
            i += 1
            continue
        raise bad_request(f"unable to parse requirement: found '{val}', expected: ',' or 'end of string'")

    def matches(obj: dict) -> bool:
        return all(req(_labels(obj)) for req in reqs)

    return matches


def _parse_set(toks, i, text):
    if i >= len(toks) or toks[i] != ("op", "("):
        found = toks[i][1] if i < len(toks) else ""
        raise bad_request(f"unable to parse requirement: found '{found}', expected: '('")
    i += 1
    values: list[str] = []
    expect_value = True
    while True:
        if i >= len(toks):
            raise bad_request("unable to parse requirement: found '', expected: ')'")
        kind, val = toks[i]
        i += 1
        if kind == "op" and val == ")":
            if expect_value and values:
                values.append("")
            break
        if kind == "op" and val == ",":
            if expect_value:
                values.append("")
            expect_value = True
            continue
        if kind == "id":
            values.append(val)
            expect_value = False
            continue
        raise bad_request(f"unable to parse requirement: found '{val}', expected: ',', ')' or identifier")
    return values, i


def _labels(obj: dict) -> dict:
    return ((obj.get("metadata") or {}).get("labels")) or {}


def _exists(key):
    return lambda labels: key in labels


def _not_exists(key):
    return lambda labels: key not in labels


def _in(key, values):
    return lambda labels: key in labels and labels[key] in values


def _notin(key, values):
    return lambda labels: key not in labels or labels[key] not in values


def _compare(key, bound, op):
    def check(labels):
        try:
            value = int(labels[key])
        except (KeyError, ValueError):
            return False
        return value > bound if op == ">" else value < bound

    return check


# --- fields -----------------------------------------------------------------------------

# Field selectors kube-apiserver supports beyond metadata.name / metadata.namespace.
EXTRA_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "pods"): ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                   "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
                   "status.podIPs", "status.nominatedNodeName"),
    ("", "secrets"): ("type",),
    ("", "events"): ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                     "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                     "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"),
    ("", "namespaces"): ("status.phase",),
    ("", "nodes"): ("spec.unschedulable",),
    ("", "replicationcontrollers"): ("status.replicas",),
    ("apps", "replicasets"): ("status.replicas",),
    ("batch", "jobs"): ("status.successful",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("spec.signerName",),
}


def _field_value(obj: dict, path: str) -> str:
    node = obj
    for part in path.split("."):
        if not isinstance(node, dict):
            return ""
        node = node.get(part)
    if node is None:
        return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def parse_field_selector(text: str | None, group: str, resource: str) -> Predicate | None:
    if not text or not text.strip():
        return None
    allowed = ("metadata.name", "metadata.namespace") + EXTRA_FIELDS.get((group, resource), ())
    reqs = []
    for term in _split_unescaped(text, ","):
        term = term.strip()
        if not term:
            continue
        for op in ("!=", "==", "="):
            idx = _find_unescaped(term, op)
            if idx >= 0:
                field, value = term[:idx].strip(), term[idx + len(op):].strip()
                break
        else:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{term}'")
        value = _unescape(value, text)
        if field not in allowed:
            quoted = ", ".join(f'"{f}"' for f in allowed)
            raise bad_request(f'"{field}" is not a known field selector: only {quoted}')
        reqs.append((field, value, op == "!="))

    def matches(obj: dict) -> bool:
        for field, value, negate in reqs:
            if (_field_value(obj, field) == value) == negate:
                return False
        return True

    return matches


def _find_unescaped(text: str, op: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(op, i):
            return i
        i += 1
    return -1


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, current, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            current.append(text[i:i + 2])
            i += 2
            continue
        if text[i] == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(text[i])
        i += 1
    parts.append("".join(current))
    return parts


def _unescape(value: str, whole: str) -> str:
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            if i + 1 < len(value) and value[i + 1] in "\\,=":
                out.append(value[i + 1])
                i += 2
                continue
            raise bad_request(f"invalid field selector: invalid escape sequence: {value[i:i + 2]}")
        out.append(ch)
        i += 1
    return "".join(out)
