"""Reading YAML documents as Kustomize (kyaml on go-yaml v3) reads resources.

Scalars resolve with yaml.v3's rules, which are YAML 1.2-like: only true/false
(any case style) are booleans, ``yes``/``on``/``no`` stay strings, ``0755`` and
``0o755`` are octal, ``0x1F`` hex, ``0b101`` binary, timestamps stay strings.
Numbers then take the JSON round trip Kustomize makes before printing.
"""
from __future__ import annotations

import math
import re

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from kubelite.manifest._goyaml_libyaml import GoYamlPyLoader

from .errors import KustomizeError, MalformedYAMLError

_Base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
_PLAIN = "tag:kubelite:plain"
_T = "tag:yaml.org,2002:"

_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INF = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}
_NINF = {"-.inf", "-.Inf", "-.INF"}
_NAN = {".nan", ".NaN", ".NAN"}
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$")


class _Unresolved:
    def resolve(self, kind, value, implicit):  # PyYAML hook: keep plain scalars unresolved
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _T + "str"
        return _T + ("map" if kind is MappingNode else "seq")


class _Loader(_Unresolved, _Base):  # type: ignore[misc, valid-type]
    pass


class _PyLoader(_Unresolved, yaml.SafeLoader):
    """For what libyaml (>= 0.2.5) refuses and yaml.v3 reads: more than 1,000 nesting levels;
    and for texts with a \\/ or \\' in them: in double quotes libyaml reads the first and
    refuses the second, yaml.v3 (as go-yaml v2, whose scanner is borrowed) the other way round."""

    _escaped_point = GoYamlPyLoader._escaped_point

    def scan_flow_scalar_non_spaces(self, double, start_mark):
        if double:  # (the borrowed scanner goes to its own class's parent for single quotes)
            return GoYamlPyLoader.scan_flow_scalar_non_spaces(self, double, start_mark)
        return super().scan_flow_scalar_non_spaces(double, start_mark)


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt/ParseUint with base 0 (leading 0 means octal)."""
    if not _GO_INT.match(text):
        return None
    sign = -1 if text[0] == "-" else 1
    body = text.lstrip("+-")
    if len(body) > 66:  # beyond any 64-bit integer in any base (Python's int() refuses 4300+ digits)
        return None
    low = body.lower()
    if low.startswith("0x"):
        value = int(body[2:], 16)
    elif low.startswith("0b"):
        value = int(body[2:], 2)
    elif low.startswith("0o"):
        value = int(body[2:], 8)
    elif len(body) > 1 and body[0] == "0":
        value = int(body[1:], 8)
    else:
        value = int(body)
    value *= sign
    if -(1 << 63) <= value < (1 << 64):
        return value
    return None


def resolve_plain(text: str) -> object:
    """The value yaml.v3 gives a plain scalar decoded into interface{}."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    first = text[0]
    if first.isdigit() or first in "+-.":
        if text in _INF:
            return math.inf
        if text in _NINF:
            return -math.inf
        if text in _NAN:
            return math.nan
        plain = text.replace("_", "")
        value = _go_parse_int(plain)
        if value is not None:
            return value
        if _FLOAT.match(plain):
            try:
                value = float(plain)
            except ValueError:
                value = None
            # out of float64's range Go's ParseFloat fails: the scalar stays a string
            if value is not None and not math.isinf(value):
                return value
    return text


def _scalar(node: ScalarNode) -> object:
    tag = node.tag
    if tag == _PLAIN:
        return resolve_plain(node.value)
    if tag == _T + "str":
        return node.value
    if tag in (_T + "int", _T + "float", _T + "bool", _T + "null"):
        return resolve_plain(node.value)
    if tag == _T + "binary":
        return node.value
    return node.value


def _build(node, active: set, context: str = "", first_wins: bool = False) -> object:
    """context: where node sits ("metadata", "annotations", "annotation" for one value...).
    A key given twice keeps its last value, or with first_wins its first (as kyaml's nodes
    answer a lookup)."""
    if isinstance(node, ScalarNode):
        if context == "annotation":
            return _annotation_value(node)
        return _scalar(node)
    if id(node) in active:
        raise KustomizeError("yaml: anchor value contains itself")
    active.add(id(node))
    try:
        if isinstance(node, SequenceNode):
            return [_build(item, active, "item" if context == "items" else "nested", first_wins) for item in node.value]
        out: dict = {}
        merges = []
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag in (_PLAIN, _T + "merge") and key_node.value == "<<":
                merges.append(value_node)
                continue
            key = _build(key_node, active)
            if isinstance(key, bool):
                key = "true" if key else "false"
            elif key is None:
                key = "null"
            elif not isinstance(key, str):
                key = str(key)
            if first_wins and key in out:
                continue
            out[key] = _build(value_node, active, _child_context(context, key), first_wins)
        for m in merges:
            sources = m.value if isinstance(m, SequenceNode) else [m]
            for src in sources:
                merged = _build(src, active, first_wins=first_wins)
                if isinstance(merged, dict):
                    for k, v in merged.items():
                        out.setdefault(k, v)
        return out
    finally:
        active.discard(id(node))


def _child_context(context: str, key: str) -> str:
    # documents and List items are objects; their metadata.annotations values are tracked
    if context in ("", "item") and key == "metadata":
        return "metadata"
    if context == "metadata" and key == "annotations":
        return "annotations"
    if context == "annotations":
        return "annotation"
    if context == "" and key == "items":
        return "items"
    return "nested"


def _annotation_value(node: ScalarNode) -> object:
    """Annotation values keep their source text: Kustomize rewrites every resource's
    annotations as a string map at the end of a build, from each scalar's text."""
    value = _scalar(node)
    if value is None or isinstance(value, str):
        return value
    return node.value


def _error_line(exc: yaml.YAMLError) -> int:
    """The line yaml.v3 names: the context's (else the problem's) 0-based line, plus one
    for scanner errors; none when that is 0."""
    scanner = 1 if isinstance(exc, yaml.scanner.ScannerError) else 0
    for mark in (getattr(exc, "context_mark", None), getattr(exc, "problem_mark", None)):
        if mark is not None and mark.line != 0:
            return mark.line + scanner
    return 0


def _compose_all(text: str) -> list:
    try:
        try:
            if "\\/" in text or "\\'" in text:
                return list(yaml.compose_all(text, Loader=_PyLoader))
            return list(yaml.compose_all(text, Loader=_Loader))
        except yaml.YAMLError as exc:
            if "maximum nesting depth" not in str(getattr(exc, "problem", "")):
                raise
            return list(yaml.compose_all(text, Loader=_PyLoader))
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = _error_line(exc)
        where = f"line {line}: " if line else ""
        raise MalformedYAMLError(f"MalformedYAMLError: yaml: {where}{problem}") from None


def load_all(text: str) -> list:
    """All documents of a YAML stream as JSON values (empty documents become None)."""
    return [None if n is None else _build(n, set()) for n in _compose_all(text)]


def load_resources(text: str) -> list[tuple[object, list[str]]]:
    """The documents as kyaml holds resources (a key given twice answers its first value),
    each with yaml.v3's complaints about those keys, which Kustomize raises only when it
    decodes the object into a map."""
    out: list[tuple[object, list[str]]] = []
    for node in _compose_all(text):
        if node is None:
            out.append((None, []))
            continue
        duplicates = duplicate_keys(node)
        if duplicates:
            duplicates = duplicate_keys(node, _kyaml_lines(text, node))
        out.append((_build(node, set(), first_wins=True), duplicates))
    return out


def _kyaml_lines(text: str, node):
    """Where kyaml's decoder sees each key of the document: lines of the document written out
    again (no `---`, no blank lines, flow collections on one line), comment lines kept."""
    rewritten = yaml.compose(yaml.serialize(node, Dumper=_Dumper, width=10**9, indent=2, allow_unicode=True),
                             Loader=_PyLoader)
    all_lines = text.split("\n")
    start = max((i + 1 for i, line in enumerate(all_lines[:node.start_mark.line]) if line.startswith("---")), default=0)
    comment_lines = [i for i, line in enumerate(all_lines) if i >= start and line.lstrip().startswith("#")]
    lines: dict[int, int] = {}

    def pair(original, copy) -> None:
        if id(original) in lines or isinstance(original, ScalarNode):
            return
        lines[id(original)] = 0
        if isinstance(original, SequenceNode):
            for a, b in zip(original.value, copy.value):
                pair(a, b)
            return
        for (ka, va), (kb, vb) in zip(original.value, copy.value):
            comments = sum(1 for c in comment_lines if c < ka.start_mark.line)
            lines[id(ka)] = kb.start_mark.line + comments
            pair(va, vb)

    pair(node, rewritten)
    return lambda key: lines.get(id(key), key.start_mark.line)


class _Dumper(yaml.SafeDumper):
    def resolve(self, kind, value, implicit):  # keep the tags the composer gave
        return _PLAIN if kind is ScalarNode and implicit[0] else super().resolve(kind, value, implicit)


def duplicate_keys(node, line_of=None, active: set | None = None) -> list[str]:
    """yaml.v3's unmarshal errors for mapping keys given twice: every later key against each
    earlier one of the same text; the values of such a mapping are not looked into.
    line_of(key node): its 0-based line (default: where it is in the text)."""
    line_of = line_of or (lambda key: key.start_mark.line)
    active = set() if active is None else active
    if isinstance(node, ScalarNode) or id(node) in active:
        return []
    active.add(id(node))
    try:
        if isinstance(node, SequenceNode):
            return [e for item in node.value for e in duplicate_keys(item, line_of, active)]
        keys = [k for k, _ in node.value]
        errors = [f"line {line_of(later) + 1}: mapping key {_go_quote(later.value)} already "
                  f"defined at line {line_of(earlier) + 1}"
                  for i, earlier in enumerate(keys) for later in keys[i + 1:]
                  if isinstance(earlier, ScalarNode) and isinstance(later, ScalarNode) and earlier.value == later.value]
        if errors:
            return errors
        return [e for _, value in node.value for e in duplicate_keys(value, line_of, active)]
    finally:
        active.discard(id(node))


def keys_set_twice(text: str) -> list[str]:
    """yaml.v2's unmarshal errors (sigs.k8s.io/yaml reads some files with it) for keys given
    twice in a mapping: one per repeated key, lines counted from the top of the text."""
    errors: list[str] = []

    def walk(node, active: set) -> None:
        if isinstance(node, ScalarNode) or id(node) in active:
            return
        active.add(id(node))
        if isinstance(node, SequenceNode):
            for item in node.value:
                walk(item, active)
        else:
            seen = set()
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    if key.value in seen:
                        errors.append(f"line {key.start_mark.line + 1}: key {_go_quote(key.value)} already set in map")
                    seen.add(key.value)
                walk(value, active)
        active.discard(id(node))

    for node in _compose_all(text):
        if node is not None:
            walk(node, set())
    return errors


def _go_quote(text: str) -> str:
    from kubelite.manifest.jsonpath import go_quote

    return go_quote(text)
