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
from ._goyaml_scalars import ESCAPES, HEX, HEX_DIGITS
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
    """The pure-Python twin of GoYamlLoader, which also lets an anchor be redefined and
    reads double-quoted escapes as go-yaml v2 does.

    go-yaml lets a later ``&name`` replace an earlier one; PyYAML's composer
    refuses, so documents that do this are composed here. libyaml reads ``\\/``
    and refuses ``\\'`` in double quotes, go-yaml the other way round: documents
    where libyaml may have misread one come here too.
    """

    resolve = GoYamlLoader.resolve

    def compose_node(self, parent, index):
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, yaml.AliasEvent):
            self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)

    def scan_flow_scalar_non_spaces(self, double, start_mark):
        if not double:
            return super().scan_flow_scalar_non_spaces(double, start_mark)
        chunks = []
        buffer = self.buffer  # the whole text: the reader was given a str
        run_at = re.compile(_DOUBLE_RUN).match
        while True:
            run = run_at(buffer, self.pointer)
            if run is not None:
                chunks.append(run.group())
                self.forward(run.end() - run.start())
            if self.peek() != "\\":
                return chunks
            if (code := self.peek(1)) in ESCAPES:
                chunks.append(ESCAPES[code])
                self.forward(2)
            elif code in HEX_DIGITS:
                self.forward(2)
                chunks.append(self._escaped_point(HEX_DIGITS[code], start_mark))
            elif code in "\r\n\x85\u2028\u2029":
                self.forward()
                self.scan_line_break()
                chunks.extend(self.scan_flow_scalar_breaks(double, start_mark))
            else:  # go-yaml's mark is the backslash's, and its wording names no character
                raise yaml.scanner.ScannerError("while parsing a quoted scalar", start_mark,
                                                "found unknown escape character", self.get_mark())

    def _escaped_point(self, width: int, start_mark) -> str:
        digits = self.prefix(width)
        if len(digits) != width or not HEX.issuperset(digits):
            raise yaml.scanner.ScannerError("while parsing a quoted scalar", start_mark,
                                            "did not find expected hexdecimal number", self.get_mark())
        point = int(digits, 16)
        if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
            raise yaml.scanner.ScannerError("while parsing a quoted scalar", start_mark,
                                            "found invalid Unicode character escape code", self.get_mark())
        self.forward(width)
        return chr(point)


# The patterns of the rare documents that come to GoYamlPyLoader or _compose_escaped, compiled
# when first used (re caches them) rather than at every import of this reader.
# What a double-quoted scalar holds up to its next escape, its end, a blank or a line break.
_DOUBLE_RUN = "[^\"\\\\\0 \t\r\n\x85\u2028\u2029]+"
# An escaped "/" (after an even run of backslashes, which escape each other).
_SLASH_ESCAPE = r"(?<!\\)(?:\\\\)*\\/"
_ESCAPE_PROBLEMS = frozenset(("found unknown escape character", "did not find expected hexdecimal number",
                              "found invalid Unicode character escape code"))


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
    try:
        if loader_class is not None:
            node = _compose(text, loader_class)
        elif "\\" in text and ("\\/" in text or "\\'" in text):
            node = _compose_escaped(text)
        else:
            try:
                node = _compose(text, GoYamlLoader)
            except _DuplicateAnchor:
                node = _compose(text, GoYamlPyLoader)
    except yaml.YAMLError as exc:
        problem, line = _problem(exc, text)
        prefix = f"yaml: line {line}: " if line is not None else "yaml: "
        raise DecodeError(prefix + problem, line) from None
    if node is None:
        return None
    try:
        return _Builder().build(node)
    except RecursionError:
        raise DecodeError("yaml: exceeded max depth", node.start_mark.line + 1) from None


def _compose(text: str, loader_class):
    """The node tree of the first document (None when empty); PyYAML's error when it is refused."""
    loader = loader_class(text)
    try:
        return loader.get_node() if loader.check_node() else None
    except yaml.YAMLError as exc:
        if loader_class is GoYamlLoader and ("duplicate anchor" in str(getattr(exc, "context", ""))
                                             or "maximum nesting depth" in str(getattr(exc, "problem", ""))):
            raise _DuplicateAnchor() from None
        raise
    except RecursionError:
        raise DecodeError("yaml: exceeded max depth") from None
    finally:
        loader.dispose()


def _compose_escaped(text: str):
    """_compose for a text with a \\/ or \\' somewhere: libyaml's reading unless it
    read or refused one of them in double quotes, where go-yaml does the opposite."""
    try:
        node = _compose(text, GoYamlLoader)
    except _DuplicateAnchor:
        return _compose(text, GoYamlPyLoader)
    except yaml.YAMLError as refused:
        if not _at_quote_escape(text, refused):
            try:
                _compose(text, GoYamlPyLoader)
            except yaml.YAMLError as exc:
                # an escape go-yaml refuses before where libyaml stopped is what go-yaml reports
                if getattr(exc, "problem", None) in _ESCAPE_PROBLEMS and exc.problem_mark.index < _index(refused, text):
                    raise exc from None
            raise refused from None
        try:
            return _compose(text, GoYamlPyLoader)
        except yaml.YAMLError as exc:
            if getattr(exc, "problem", None) in _ESCAPE_PROBLEMS:
                raise
            raise _libyaml_words(text, refused, exc) from None
    if "\\/" in text and _slash_escaped(text, node):
        return _compose(text, GoYamlPyLoader)
    return node


def _index(exc: yaml.YAMLError, text: str) -> int:
    mark = getattr(exc, "problem_mark", None)
    return len(text) if mark is None else mark.index


def _at_quote_escape(text: str, exc: yaml.YAMLError) -> bool:
    """Whether libyaml refused a \\' (which go-yaml takes)."""
    problem = getattr(exc, "problem", None)
    return problem == "found unknown escape character" and text.startswith("\\'", _index(exc, text))


# libyaml is asked again this many times for its wording of an error after a \' before the
# pure-Python parser's is taken: a few scalars with \' are usual, hundreds would cost seconds
_REREADS = 8


def _libyaml_words(text: str, refused: yaml.YAMLError, fallback: yaml.YAMLError) -> yaml.YAMLError:
    """libyaml's wording for the error that the pure-Python parser worded as ``fallback``.

    libyaml ``refused`` a \\' in double quotes, which go-yaml takes: the text is read again
    with \\" for every \\' of that scalar (as long, so that every mark stays) until libyaml
    refuses something else.
    """
    for _ in range(_REREADS):
        start = refused.context_mark.index
        end = re.compile(_DOUBLE_SCALAR).match(text, start).end()
        text = text[:start] + re.sub(_ESCAPE_PAIR, _no_single_quote, text[start:end]) + text[end:]
        try:
            _compose(text, GoYamlLoader)
        except _DuplicateAnchor:
            return fallback
        except yaml.YAMLError as exc:
            if not _at_quote_escape(text, exc):
                return exc
            refused = exc
            continue
        return fallback
    return fallback


# A double-quoted scalar up to its closing quote, and each of its escapes.
_DOUBLE_SCALAR = r'(?s)"(?:[^"\\]+|\\.)*'
_ESCAPE_PAIR = r"(?s)\\."


def _no_single_quote(escape: re.Match) -> str:
    return '\\"' if escape.group() == "\\'" else escape.group()


def _slash_escaped(text: str, node) -> bool:
    """Whether a double-quoted scalar of the tree has a \\/ escape (libyaml took it)."""
    escaped = re.compile(_SLASH_ESCAPE).search
    seen: set[int] = set()
    todo = [node]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.__class__ is ScalarNode:
            if node.style == '"' and escaped(text, node.start_mark.index, node.end_mark.index):
                return True
        elif node.__class__ is SequenceNode:
            todo.extend(node.value)
        else:
            for pair in node.value:
                todo.extend(pair)
    return False
