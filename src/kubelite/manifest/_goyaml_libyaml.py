"""Decoding any YAML document as kubectl does, on PyYAML's node tree.

PyYAML composes the nodes (libyaml when present); the scalar resolution, merge
keys, aliases and key conversion follow go-yaml v2 and the number handling
follows sigs.k8s.io/yaml's JSON round trip. The documents the block-style
reader (_goyaml_block) declines come here, and so do all the errors.
"""
from __future__ import annotations

import re

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ._goplain import resolve_plain
from ._goyaml_values import DecodeError, json_number, key_string, resolve_tagged

_BaseLoader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

_PLAIN = "tag:kubelite:plain"
_YAML = "tag:yaml.org,2002:"
_STR = _YAML + "str"
_MAP = _YAML + "map"
_SEQ = _YAML + "seq"
_MERGE = _YAML + "merge"
# First characters of the plain scalars resolve_plain may turn into something else than themselves.
_RESOLVABLE = frozenset("yYnNtTfFoO~.+-0123456789")


class GoYamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A PyYAML loader that leaves plain scalars unresolved.

    Plain scalars get a private tag so that resolution happens once, in
    :func:`resolve_plain`, with go-yaml v2's rules instead of PyYAML's.
    """

    if _BaseLoader is not yaml.SafeLoader:
        def __init__(self, stream):  # only the composer: the constructor and resolver state is never used
            yaml.cyaml.CParser.__init__(self, stream)

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML hook
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _MAP if kind is MappingNode else _SEQ

    # Path resolvers are never registered: the composer's two calls around every node go to
    # C callables that ignore their arguments, not to Python methods that check for none.
    descend_resolver = staticmethod(slice)
    ascend_resolver = staticmethod(tuple)


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
        if self.aliased > 100:
            self._check_aliasing()

    def _build(self, node) -> object:
        self._count(node)
        if isinstance(node, ScalarNode):
            return json_number(self.scalar(node))
        ident = id(node)
        self.active.add(ident)
        try:
            if isinstance(node, SequenceNode):
                return [self.leaf(child) if child.__class__ is ScalarNode else self.build(child)
                        for child in node.value]
            out: dict[str, object] = {}
            self.fill(node, out)
            return out
        finally:
            self.active.discard(ident)

    def leaf(self, node: ScalarNode) -> object:
        """build() of a scalar node in one call: most nodes are scalars."""
        ident = id(node)
        seen = self.seen
        again = ident in seen
        if not again:
            seen.add(ident)
        self.decoded += 1
        if again or self.alias_depth:
            self.aliased += 1
        if self.aliased > 100:
            self._check_aliasing()
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            if text[:1] in _RESOLVABLE or not text:
                return json_number(resolve_plain(text))
            return text
        if tag == _STR:
            return text
        return json_number(resolve_tagged(tag, text))

    def _check_aliasing(self) -> None:
        if self.decoded > 1000 and self.aliased / self.decoded > _allowed_alias_ratio(self.decoded):
            raise DecodeError("yaml: document contains excessive aliasing")  # go-yaml names no line

    @staticmethod
    def scalar(node: ScalarNode) -> object:
        if node.tag == _PLAIN:
            return resolve_plain(node.value)
        if node.tag == _STR:
            return node.value
        return resolve_tagged(node.tag, node.value)

    def fill(self, node: MappingNode, out: dict) -> None:
        for key_node, value_node in node.value:
            if key_node.__class__ is not ScalarNode:
                raise DecodeError("yaml: invalid map key", key_node.start_mark.line + 1)
            tag, text = key_node.tag, key_node.value
            if text == "<<" and tag in (_PLAIN, _MERGE):
                self.merge(value_node, out)
                continue
            self._count(key_node)
            if tag == _STR or (tag == _PLAIN and text and text[0] not in _RESOLVABLE):
                key = text
            else:
                key = self.scalar(key_node)
                if key.__class__ is not str:
                    key = key_string(key, key_node.start_mark.line + 1)
            out[key] = self.leaf(value_node) if value_node.__class__ is ScalarNode else self.build(value_node)

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
