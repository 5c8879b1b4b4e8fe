"""Decoding one YAML document to a JSON value exactly as kubectl does.

kubectl converts YAML with sigs.k8s.io/yaml: go-yaml v2 (YAML 1.1 scalars)
decodes the document, the result is marshalled to JSON, and that JSON is read
back as an unstructured object (int64 where the text is an integer that fits,
float64 otherwise). PyYAML builds the node tree here (libyaml when present);
the scalar resolution, merge keys and key conversion follow go-yaml v2 and the
number handling follows the JSON round trip.
"""
from __future__ import annotations

import base64
import binascii
import math
import re

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from . import _gonum
from ._goplain import MERGE, _Uint, resolve_plain

_BaseLoader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

_PLAIN = "tag:kubelite:plain"
_YAML = "tag:yaml.org,2002:"
_STR = _YAML + "str"
_MAP = _YAML + "map"
_SEQ = _YAML + "seq"
_MERGE = _YAML + "merge"


class GoYamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A PyYAML loader that leaves plain scalars unresolved.

    Plain scalars get a private tag so that resolution happens once, in
    :func:`resolve_plain`, with go-yaml v2's rules instead of PyYAML's.
    """

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML hook
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _MAP if kind is MappingNode else _SEQ


class GoYamlPyLoader(yaml.SafeLoader):
    """The pure-Python twin of GoYamlLoader, which also lets an anchor be redefined.

    go-yaml lets a later ``&name`` replace an earlier one; PyYAML's composer
    refuses, so documents that do this are composed here.
    """

    resolve = GoYamlLoader.resolve

    def compose_node(self, parent, index):
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, yaml.AliasEvent):
            self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)


class DecodeError(Exception):
    """A document is not valid YAML or has no JSON equivalent.

    ``line`` is 1-based within the document text, or None.
    """

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


_TAG_NAMES = {_YAML + n: n for n in ("bool", "int", "float", "null", "timestamp", "str", "binary", "merge")}


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if value is MERGE:
        return "merge"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def _resolve_tagged(tag: str, text: str) -> object:
    """go-yaml v2's value for a scalar with an explicit tag."""
    name = _TAG_NAMES.get(tag)
    if name is None or name == "str" or name == "timestamp":
        return text
    if name == "binary":
        try:
            raw = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise DecodeError(f"yaml: !!binary value contains invalid base64 data: {exc}") from None
        return raw.decode("utf-8", "replace")
    value = resolve_plain(text)
    got = _kind_of(value)
    if got == name:
        return value
    if name == "float" and got == "int":
        return float(value)  # type: ignore[arg-type]
    raise DecodeError(f"yaml: cannot decode !!{got} `{text}` as a !!{name}")


def _json_number(value: object) -> object:
    """The value after go's JSON round trip: int64 stays int, the rest float64."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, _Uint):
        return float(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise DecodeError("json: unsupported value: " + _gonum.go_g(value))
        text = _gonum.json_float(value)
        if "e" not in text and "." not in text:
            n = int(text)
            if _gonum.INT64_MIN <= n <= _gonum.INT64_MAX:
                return n
        return value
    return value


def _key_string(key: object, node: ScalarNode) -> str:
    """sigs.k8s.io/yaml's conversion of a decoded map key to a JSON key."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, _Uint):
        raise DecodeError(f"unsupported map key of type: uint64, key: 0x{int(key):x}", node.start_mark.line + 1)
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        s = _gonum.float32_g(key)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(s, s)
    if key is MERGE:
        return "<<"
    raise DecodeError("unsupported map key of type: <nil>, key: <nil>", node.start_mark.line + 1)


# go-yaml v2 stops documents that expand aliases without bound
_ALIAS_LOW, _ALIAS_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(count: int) -> float:
    if count <= _ALIAS_LOW:
        return 0.99
    if count >= _ALIAS_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((count - _ALIAS_LOW) / (_ALIAS_HIGH - _ALIAS_LOW))


class _Builder:
    """Turns a composed node tree into JSON values, go-yaml v2 style."""

    __slots__ = ("seen", "active", "decoded", "aliased", "alias_depth")

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.active: set[int] = set()
        self.decoded = 0
        self.aliased = 0
        self.alias_depth = 0

    def build(self, node) -> object:
        ident = id(node)
        if ident in self.active:
            anchor = getattr(node, "anchor", None) or "?"
            raise DecodeError(f"yaml: anchor '{anchor}' value contains itself", node.start_mark.line + 1)
        again = ident in self.seen
        if again:
            self.alias_depth += 1
        self.seen.add(ident)
        try:
            return self._build(node)
        finally:
            if again:
                self.alias_depth -= 1

    def _count(self, node) -> None:
        self.decoded += 1
        if self.alias_depth:
            self.aliased += 1
        if self.aliased > 100 and self.decoded > 1000 and self.aliased / self.decoded > _allowed_alias_ratio(self.decoded):
            raise DecodeError("yaml: document contains excessive aliasing")  # go-yaml names no line

    def _build(self, node) -> object:
        self._count(node)
        if isinstance(node, ScalarNode):
            return _json_number(self.scalar(node))
        ident = id(node)
        self.active.add(ident)
        try:
            if isinstance(node, SequenceNode):
                return [self.build(child) for child in node.value]
            out: dict[str, object] = {}
            self.fill(node, out)
            return out
        finally:
            self.active.discard(ident)

    @staticmethod
    def scalar(node: ScalarNode) -> object:
        if node.tag == _PLAIN:
            return resolve_plain(node.value)
        if node.tag == _STR:
            return node.value
        return _resolve_tagged(node.tag, node.value)

    def fill(self, node: MappingNode, out: dict) -> None:
        for key_node, value_node in node.value:
            if self._is_merge(key_node):
                self.merge(value_node, out)
                continue
            if not isinstance(key_node, ScalarNode):
                raise DecodeError("yaml: invalid map key", key_node.start_mark.line + 1)
            self._count(key_node)
            key = _key_string(self.scalar(key_node), key_node)
            out[key] = self.build(value_node)

    @staticmethod
    def _is_merge(node) -> bool:
        return isinstance(node, ScalarNode) and node.value == "<<" and node.tag in (_PLAIN, _MERGE)

    def merge(self, node, out: dict) -> None:
        # Earlier maps of a merge sequence win, so apply them last.
        if isinstance(node, MappingNode):
            sources = [node]
        elif isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
            sources = list(reversed(node.value))
        else:
            raise DecodeError("yaml: map merge requires map or sequence of maps as the value", node.start_mark.line + 1)
        for src in sources:
            ident = id(src)
            if ident in self.active:
                raise DecodeError("yaml: anchor value contains itself", src.start_mark.line + 1)
            again = ident in self.seen
            if again:
                self.alias_depth += 1
            self.seen.add(ident)
            self.active.add(ident)
            try:
                self._count(src)
                self.fill(src, out)
            finally:
                self.active.discard(ident)
                if again:
                    self.alias_depth -= 1


def _problem(exc: yaml.YAMLError, text: str) -> tuple[str, int | None]:
    """go-yaml's wording and line for a syntax error.

    go-yaml prints the 0-based problem line for parser errors and the 1-based
    one for scanner errors, falling back to the context line.
    """
    if isinstance(exc, yaml.reader.ReaderError):
        return "control characters are not allowed", None
    problem = getattr(exc, "problem", None) or str(exc)
    if isinstance(exc, yaml.composer.ComposerError) and "undefined alias" in problem:
        mark = exc.problem_mark
        name = _word_at(text, mark.index + 1) if mark is not None else ""
        return f"unknown anchor '{name}' referenced", None
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    line = 0
    if mark is not None and mark.line != 0:
        line = mark.line + (1 if isinstance(exc, yaml.scanner.ScannerError) else 0)
    elif context is not None and context.line != 0:
        line = context.line
    return problem, line or None


class _DuplicateAnchor(Exception):
    """The C parser refused what go-yaml accepts (a reused anchor name; libyaml >= 0.2.5's nesting
    limit of 1,000 levels): the pure-Python parser reads it instead."""


_WORD = re.compile(r"[^\s,\[\]{}]*")


def _word_at(text: str, index: int) -> str:
    return _WORD.match(text, index).group() if 0 <= index <= len(text) else ""


def decode_yaml(text: str, loader_class=None) -> object:
    """The JSON value of the first YAML document in ``text`` (None when empty)."""
    if loader_class is None:
        try:
            return decode_yaml(text, GoYamlLoader)
        except _DuplicateAnchor:
            return decode_yaml(text, GoYamlPyLoader)
    loader = loader_class(text)
    try:
        try:
            node = loader.get_node() if loader.check_node() else None
        except yaml.YAMLError as exc:
            if loader_class is GoYamlLoader and ("duplicate anchor" in str(getattr(exc, "context", ""))
                                                 or "maximum nesting depth" in str(getattr(exc, "problem", ""))):
                raise _DuplicateAnchor() from None
            problem, line = _problem(exc, text)
            prefix = f"yaml: line {line}: " if line is not None else "yaml: "
            raise DecodeError(prefix + problem, line) from None
        finally:
            loader.dispose()
    except RecursionError:
        raise DecodeError("yaml: exceeded max depth") from None
    if node is None:
        return None
    try:
        return _Builder().build(node)
    except RecursionError:
        raise DecodeError("yaml: exceeded max depth", node.start_mark.line + 1) from None
