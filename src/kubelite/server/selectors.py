"""Label and field selectors as kube-apiserver parses and applies them.

parse_label_selector / parse_field_selector return a predicate over an object, or raise
StatusError(400) with the apiserver's wording.
"""
from __future__ import annotations

import re
from typing import Callable

from kubelite.server.errors import bad_request

Predicate = Callable[[dict], bool]

_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_INT64 = re.compile(r"^[+-]?[0-9]+$")

_NAME_RULE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_SUBDOMAIN_RULE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                   "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                   "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_VALUE_RULE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")

# --- labels: the lexer -------------------------------------------------------------------
# Token kinds. The lexer is kube's: runs of special characters form the longest known operator,
# anything else up to whitespace or a special character is an identifier (or the keywords
# in/notin); an error names the token found as its literal text.
END, IDENT, OPEN, CLOSE, COMMA, NOT, EQ, EQEQ, NEQ, GT, LT, IN, NOTIN = (
    "end", "ident", "(", ")", ",", "!", "=", "==", "!=", ">", "<", "in", "notin")
_SYMBOLS = {")": CLOSE, ",": COMMA, "!": NOT, "==": EQEQ, "=": EQ, ">": GT, "<": LT, "!=": NEQ, "(": OPEN}
_KEYWORDS = {"in": IN, "notin": NOTIN}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(text: str) -> list[tuple[str, str]]:
    """(kind, literal) tokens, always ending with (END, "")."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        # A NUL byte reads as the end of input, as in kube's byte-wise lexer.
        if i >= n or text[i] == "\0":
            tokens.append((END, ""))
            return tokens
        if text[i] in _SPECIAL:
            j, best = i, None
            while j < n and text[j] in _SPECIAL:
                if text[i:j + 1] in _SYMBOLS:
                    best = j + 1
                elif best is not None:
                    break
                j += 1
            literal = text[i:best]
            tokens.append((_SYMBOLS[literal], literal))
            i = best
            continue
        j = i
        while j < n and text[j] not in _SPECIAL and text[j] not in _WHITESPACE and text[j] != "\0":
            j += 1
        word = text[i:j]
        tokens.append((_KEYWORDS.get(word, IDENT), word))
        i = j + 1 if j < n and text[j] == "\0" else j


# --- labels: the parser ------------------------------------------------------------------

class _SelectorSyntaxError(Exception):
    pass


class _Tokens:
    """Cursor over the tokens. In value position the keywords in/notin are plain identifiers."""

    def __init__(self, tokens):
        self.items = tokens
        self.pos = 0

    def peek(self, values: bool = True) -> tuple[str, str]:
        kind, literal = self.items[min(self.pos, len(self.items) - 1)]
        return (IDENT if values and kind in (IN, NOTIN) else kind), literal

    def take(self, values: bool = True) -> tuple[str, str]:
        token = self.peek(values)
        self.pos += 1
        return token


_BINARY = {IN: "in", NOTIN: "notin", EQ: "=", EQEQ: "==", NEQ: "!=", GT: "gt", LT: "lt"}


def parse_label_requirements(text: str | None) -> list[tuple[str, str, tuple[str, ...]]]:
    """(key, operator, values) requirements, or StatusError(400) with kube-apiserver's wording."""
    try:
        return _parse_requirements(_Tokens(_lex(text or "")))
    except _SelectorSyntaxError as exc:
        raise bad_request(str(exc)) from None


def _parse_requirements(toks: _Tokens) -> list[tuple[str, str, tuple[str, ...]]]:
    requirements = []
    while True:
        kind, literal = toks.peek()
        if kind == END:
            return requirements
        if kind not in (IDENT, NOT):
            raise _SelectorSyntaxError(f"found '{literal}', expected: !, identifier, or 'end of string'")
        try:
            requirements.append(_parse_requirement(toks))
        except _SelectorSyntaxError as exc:
            raise _SelectorSyntaxError(f"unable to parse requirement: {exc}") from None
        kind, literal = toks.take()
        if kind == END:
            return requirements
        if kind != COMMA:
            raise _SelectorSyntaxError(f"found '{literal}', expected: ',' or 'end of string'")
        kind, literal = toks.peek()
        if kind not in (IDENT, NOT):
            raise _SelectorSyntaxError(f"found '{literal}', expected: identifier after ','")


def _parse_requirement(toks: _Tokens) -> tuple[str, str, tuple[str, ...]]:
    kind, key = toks.take()
    negated = kind == NOT
    if negated:
        kind, key = toks.take()
    if kind != IDENT:
        raise _SelectorSyntaxError(f"found '{key}', expected: identifier")
    key_problems = _key_problems(key)
    if key_problems:
        # Checked before a requirement exists, so the field path is Go's nil path.
        raise _SelectorSyntaxError(f'<nil>: Invalid value: "{_go_quote(key)}": ' + "; ".join(key_problems))
    if negated:
        return _requirement(key, "!", ())
    if toks.peek()[0] in (END, COMMA):
        return _requirement(key, "exists", ())
    kind, literal = toks.take(values=False)
    if kind not in _BINARY:
        raise _SelectorSyntaxError(f"found '{literal}', expected: in, notin, =, ==, !=, gt, lt")
    values = _parse_value_set(toks) if kind in (IN, NOTIN) else _parse_exact_value(toks)
    return _requirement(key, _BINARY[kind], tuple(sorted(values, key=lambda v: v.encode())))


def _parse_value_set(toks: _Tokens) -> set[str]:
    kind, literal = toks.take()
    if kind != OPEN:
        raise _SelectorSyntaxError(f"found '{literal}' expected: '('")
    kind, literal = toks.peek()
    if kind == CLOSE:  # "()" is the set holding the empty value
        toks.take()
        return {""}
    if kind not in (IDENT, COMMA):
        raise _SelectorSyntaxError(f"found '{literal}', expected: ',', ')' or identifier")
    values = _parse_value_list(toks)
    if toks.take()[0] != CLOSE:
        raise _SelectorSyntaxError(f"found '{literal}', expected: ')'")
    return values


def _parse_value_list(toks: _Tokens) -> set[str]:
    # Empty entries (a leading, doubled or trailing comma) stand for the empty value; kube 1.32
    # also steps over the second comma of a ",," pair, which this keeps.
    values: set[str] = set()
    while True:
        kind, literal = toks.take()
        if kind == IDENT:
            values.add(literal)
            after, after_literal = toks.peek()
            if after == COMMA:
                continue
            if after == CLOSE:
                return values
            raise _SelectorSyntaxError(f"found '{after_literal}', expected: ',' or ')'")
        if kind == COMMA:
            if not values:
                values.add("")
            after = toks.peek()[0]
            if after == CLOSE:
                values.add("")
                return values
            if after == COMMA:
                toks.take()
                values.add("")
            continue
        raise _SelectorSyntaxError(f"found '{literal}', expected: ',', or identifier")


def _parse_exact_value(toks: _Tokens) -> set[str]:
    if toks.peek()[0] in (END, COMMA):
        return {""}
    kind, literal = toks.take()
    if kind != IDENT:
        raise _SelectorSyntaxError(f"found '{literal}', expected: identifier")
    return {literal}


def _requirement(key: str, op: str, values: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """Validate as a requirement is built; several problems are reported together, bracketed."""
    problems: list[str] = []
    if op in ("gt", "lt"):
        for i, value in enumerate(values):
            if not _is_int64(value):
                problems.append(f'values[{i}]: Invalid value: "{_go_quote(value)}": '
                                "for 'Gt', 'Lt' operators, the value must be an integer")
    for i, value in enumerate(values):
        value_problems = _value_problems(value)
        if value_problems:
            problems.append(f'values[{i}][{key}]: Invalid value: "{_go_quote(value)}": '
                            + "; ".join(value_problems))
    unique = list(dict.fromkeys(problems))
    if len(unique) == 1:
        raise _SelectorSyntaxError(unique[0])
    if unique:
        raise _SelectorSyntaxError("[" + ", ".join(unique) + "]")
    return key, op, values


def _key_problems(key: str) -> list[str]:
    parts = key.split("/")
    if len(parts) > 2:
        return ["a qualified name " + _NAME_RULE + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    problems = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                problems.append("prefix part must be no more than 253 characters")
            if not _SUBDOMAIN.fullmatch(prefix):
                problems.append("prefix part " + _SUBDOMAIN_RULE)
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if not _NAME.fullmatch(name):
        problems.append("name part " + _NAME_RULE)
    return problems


def _value_problems(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not _VALUE.fullmatch(value):
        problems.append(_VALUE_RULE)
    return problems


def _is_int64(text: str) -> bool:
    return bool(_INT64.fullmatch(text)) and -(2 ** 63) <= int(text) < 2 ** 63


def _go_quote(text: str) -> str:
    """The inside of Go's %q for text: JSON escaping is close enough for selector input."""
    import json

    return json.dumps(text, ensure_ascii=False)[1:-1]


# --- labels: matching --------------------------------------------------------------------

def parse_label_selector(text: str | None) -> Predicate | None:
    """None for an empty selector (everything matches)."""
    requirements = parse_label_requirements(text)
    if not requirements:
        return None
    checks = [_check(key, op, values) for key, op, values in requirements]

    def matches(obj: dict) -> bool:
        labels = _labels(obj)
        return all(check(labels) for check in checks)

    return matches


def _labels(obj: dict) -> dict:
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


def _check(key: str, op: str, values: tuple[str, ...]) -> Callable[[dict], bool]:
    if op in ("in", "=", "=="):
        return lambda labels: key in labels and labels[key] in values
    if op in ("notin", "!="):
        return lambda labels: key not in labels or labels[key] not in values
    if op == "exists":
        return lambda labels: key in labels
    if op == "!":
        return lambda labels: key not in labels
    bound = int(values[0])

    def compare(labels: dict) -> bool:
        value = labels.get(key)
        if not isinstance(value, str) or not _is_int64(value):
            return False
        return int(value) > bound if op == "gt" else int(value) < bound

    return compare


# --- fields -----------------------------------------------------------------------------

# Kinds whose API version registers its own field-label conversion: the labels each accepts and
# the wording of a refusal (kube-apiserver 1.32). Every other built-in kind takes only
# metadata.name and metadata.namespace, refused in the generic wording.
_NOT_SUPPORTED = "field label not supported: {}"
FIELD_LABELS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("", "pods"): (("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
                    "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                    "status.podIP", "status.podIPs", "status.nominatedNodeName"), _NOT_SUPPORTED),
    ("", "nodes"): (("metadata.name", "spec.unschedulable"), _NOT_SUPPORTED),
    ("", "replicationcontrollers"): (("metadata.name", "metadata.namespace", "status.replicas"),
                                     _NOT_SUPPORTED),
    ("", "events"): (("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                      "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                      "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
                      "metadata.namespace", "metadata.name"), _NOT_SUPPORTED),
    ("", "namespaces"): (("status.phase", "metadata.name"), _NOT_SUPPORTED),
    ("", "secrets"): (("type", "metadata.namespace", "metadata.name"), _NOT_SUPPORTED),
    ("", "services"): (("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"), _NOT_SUPPORTED),
    ("apps", "statefulsets"): (("metadata.name", "metadata.namespace", "status.successful"),
                               "field label not supported for appsv1.StatefulSet: {}"),
    ("batch", "jobs"): (("metadata.name", "metadata.namespace", "status.successful"), _NOT_SUPPORTED),
    ("certificates.k8s.io", "certificatesigningrequests"): (("metadata.name", "spec.signerName"),
                                                            _NOT_SUPPORTED),
}
# Labels another name stands for (old v1 clients send spec.host for a pod's node).
_ALIASES = {("", "pods", "spec.host"): "spec.nodeName"}
# Selectable fields whose value is not simply the object's field at that path: (path, default).
_SOURCES = {
    ("", "pods", "spec.hostNetwork"): ("spec.hostNetwork", False),
    ("", "nodes", "spec.unschedulable"): ("spec.unschedulable", False),
    ("", "replicationcontrollers", "status.replicas"): ("status.replicas", 0),
    ("batch", "jobs", "status.successful"): ("status.succeeded", 0),
    ("", "events", "source"): ("source.component", None),
}


def parse_field_selector(text: str | None, group: str, resource: str, *, crd: bool = False,
                         namespaced: bool = True) -> Predicate | None:
    """A predicate for a fieldSelector (None when empty), or StatusError(400) with kube's wording.

    As kube-apiserver: all terms are parsed (in sorted order) before any label is checked
    against what the resource supports.
    """
    terms = [_parse_term(text, part) for part in sorted(_split_terms(text or ""), key=str.encode) if part]
    checks = []
    for field, value, negate in terms:
        field = _convert_label(field, group, resource, crd, namespaced)
        source = _SOURCES.get((group, resource, field), (field, None))
        checks.append((source, value, negate))
    if not checks:
        return None

    def matches(obj: dict) -> bool:
        return all((_field_value(obj, *source) == value) != negate for source, value, negate in checks)

    return matches


def _split_terms(text: str) -> list[str]:
    """Split at commas not escaped by a backslash; the escapes stay in the terms."""
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _parse_term(whole: str, term: str) -> tuple[str, str, bool]:
    # No escaping on the left: the first operator found splits the term, "!=" and "==" first.
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], _unescape(term[i + len(op):]), op == "!="
    raise bad_request(f"invalid selector: '{whole}'; can't understand '{term}'")


def _unescape(value: str) -> str:
    out, escaped = [], False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise bad_request(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise bad_request("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _convert_label(field: str, group: str, resource: str, crd: bool, namespaced: bool) -> str:
    if crd:
        if field == "metadata.name" or (namespaced and field == "metadata.namespace"):
            return field
        raise bad_request(_NOT_SUPPORTED.format(field))
    custom = FIELD_LABELS.get((group, resource))
    if custom is None:
        if field in ("metadata.name", "metadata.namespace"):
            return field
        raise bad_request(f'"{field}" is not a known field selector: only "metadata.name", "metadata.namespace"')
    labels, refusal = custom
    if field in labels:
        return field
    alias = _ALIASES.get((group, resource, field))
    if alias:
        return alias
    raise bad_request(refusal.format(field))


def _field_value(obj: dict, path: str, default=None) -> str:
    node = obj
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if node is None:
        node = default
    if node is None:
        return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)
