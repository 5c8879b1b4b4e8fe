"""From the text of one source to its objects, as kubectl's resource builder reads it.

A source whose first non-space character is ``{`` is a JSON stream (several
JSON values may follow each other); anything else is YAML, split into
documents at lines that start with ``---``. Empty and ``null`` documents are
skipped. Each document is checked as kubectl's client-side validation checks
it (a mapping with string ``apiVersion`` and ``kind``), then anything with an
``items`` key is a list and is replaced by its items.
"""
from __future__ import annotations

import json
import math
import re

from kubelite.schema.gojson import json_kind, without_lone_surrogates

from . import _gojson, _goyaml, _goyaml_block
from ._gonum import INT64_MAX, INT64_MIN
from .errors import ManifestError, aggregate
from .jsonfmt import to_compact_json

_STOP_VALIDATE = "if you choose to ignore these errors, turn validation off with --validate=false"


class Manifest:
    """One object read from a source.

    ``obj`` is the object as a plain JSON value (dict). ``source`` names where it
    came from as kubectl names it (a path, a URL or ``STDIN``); ``document`` is
    the 0-based index of the document in that source, ``line`` the 1-based line
    where the document starts, and ``item`` the position within a List
    document (None for a document that is itself the object).

    Immutable, compared by all five, unhashable (``obj`` is a dict): what a frozen
    dataclass is, written out because dataclasses (with inspect) took a third of
    the reader's import time.
    """

    __slots__ = ("obj", "source", "document", "line", "item")
    obj: dict
    source: str
    document: int
    line: int
    item: int | None

    def __init__(self, obj: dict, source: str, document: int, line: int, item: int | None = None):
        setter = object.__setattr__
        setter(self, "obj", obj)
        setter(self, "source", source)
        setter(self, "document", document)
        setter(self, "line", line)
        setter(self, "item", item)

    def _fields(self) -> tuple:
        return (self.obj, self.source, self.document, self.line, self.item)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return (f"Manifest(obj={self.obj!r}, source={self.source!r}, document={self.document!r}, "
                f"line={self.line!r}, item={self.item!r})")

    def where(self) -> str:
        """A short location for messages: ``file.yaml:12`` (plus the List item)."""
        text = f"{self.source}:{self.line}"
        return text if self.item is None else f"{text} (items[{self.item}])"


class _Document:
    __slots__ = ("value", "line")

    def __init__(self, value: object, line: int):
        self.value = value
        self.line = line


# -- splitting ---------------------------------------------------------------------

def _lines(text: str):
    """Lines as bufio.Reader.ReadLine yields them: without "\\n" or "\\r\\n"."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        yield line[:-1] if line.endswith("\r") else line


def split_yaml(text: str, source: str) -> list[tuple[str, int]]:
    """The YAML documents of a stream with their first line numbers.

    A line starting with ``---`` ends the current document; only spaces or a
    comment may follow the dashes (kubectl rejects ``--- {a: 1}``).
    """
    if "\r" in text:
        return _split_lines(text, source)
    return _split_at_separators(text, source)


_SEPARATOR = re.compile(r"^---(.*)$", re.M)


def _split_at_separators(text: str, source: str) -> list[tuple[str, int]]:
    """split_yaml for text without carriage returns, in slices between the separator lines."""
    docs: list[tuple[str, int]] = []
    start, first_line = 0, 1  # where the current document's lines begin
    line, counted = 1, 0
    for match in _SEPARATOR.finditer(text):
        at = match.start()
        line += text.count("\n", counted, at)
        counted = at
        _check_separator(match.group(1), source, line)
        if at > start:
            docs.append((text[start:at], first_line))
            start, first_line = match.end() + 1, line + 1
        else:
            first_line = line  # a separator that ends nothing is the next document's first line
    if start < len(text):
        tail = text[start:]
        docs.append((tail if tail.endswith("\n") else tail + "\n", first_line))
    return docs


def _check_separator(after_dashes: str, source: str, line: int) -> None:
    rest = after_dashes.strip()
    if rest and not rest.startswith("#"):
        raise ManifestError(f"error parsing {source}: invalid Yaml document separator: {rest}", source, line)


def _split_lines(text: str, source: str) -> list[tuple[str, int]]:
    """split_yaml line by line, as bufio.Reader.ReadLine gives them."""
    docs: list[tuple[str, int]] = []
    buf: list[str] = []
    start = 1
    for number, line in enumerate(_lines(text), 1):
        if line.startswith("---"):
            _check_separator(line[3:], source, number)
            if buf:
                docs.append(("\n".join(buf) + "\n", start))
                buf = []
                start = number + 1
                continue
        if not buf:
            start = number
        buf.append(line)
    if buf:
        docs.append(("\n".join(buf) + "\n", start))
    return docs


def _yaml_documents(text: str, source: str) -> list[_Document]:
    out = []
    # the characters the block-style reader refuses are looked for once, in the whole stream
    block = not _goyaml_block.has_unusual_characters(text)
    for chunk, first_line in split_yaml(text, source):
        try:
            value = _goyaml_block.decode_block(chunk, checked=True) if block else _goyaml_block.NOT_BLOCK
            if value is _goyaml_block.NOT_BLOCK:
                value = _goyaml.decode_yaml(chunk, block=not block)
        except _goyaml.DecodeError as exc:
            message, absolute = exc.message, None
            if exc.line is not None:
                # go-yaml counts lines from the document start; the file's line is more useful
                absolute = first_line + exc.line - 1
                message = message.replace(f"line {exc.line}:", f"line {absolute}:", 1)
                if f"line {absolute}" not in message:
                    message += f" (line {absolute})"
            raise ManifestError(
                f"error parsing {source}: error converting YAML to JSON: {message}", source, absolute) from None
        out.append(_Document(value, first_line))
    return out


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


_CONSTANT = "a JavaScript constant"


def _reject_constant(name: str):
    raise ValueError(_CONSTANT)


def _json_int(text: str):
    # unstructured JSON keeps int64 and turns every other number into float64
    try:
        n = int(text)
    except ValueError:  # beyond Python's digit limit: far beyond int64 anyway
        return _json_float(text)
    if INT64_MIN <= n <= INT64_MAX:
        return n
    return _json_float(text)


def _json_float(text: str):
    f = float(text)
    if math.isinf(f):
        raise ValueError(f"json: cannot unmarshal number {text} into Go value of type float64")
    return _goyaml.json_number(f)


_DECODER = json.JSONDecoder(parse_float=_json_float, parse_int=_json_int, parse_constant=_reject_constant)


def _json_documents(text: str, source: str) -> list[_Document]:
    out = []
    pos = _JSON_SPACE.match(text, 0).end()
    line, counted = 1, 0  # newlines are counted once, as the stream advances
    while pos < len(text):
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problem = _go_json_problem(text, pos, exc)
            # a stream that stops early is io.ErrUnexpectedEOF, not a syntax error
            problem = "unexpected EOF" if problem == _UNEXPECTED_EOF else "json: " + problem
            raise ManifestError(f"error parsing {source}: {problem}", source, exc.lineno) from None
        except ValueError as exc:
            if str(exc) == _CONSTANT:  # NaN, Infinity: Go's scanner stops at their first byte
                problem, offset = _gojson.syntax_error_at(text[pos:].encode())
                offset += len(text[:pos].encode())
                raise ManifestError(f"error parsing {source}: json: offset {offset}: {problem}", source,
                                    line) from None
            raise ManifestError(f"error parsing {source}: {exc} (line {line})", source, line) from None
        except RecursionError:
            raise ManifestError(f"error parsing {source}: json: exceeded max depth", source) from None
        out.append(_Document(value, line))
        pos = _JSON_SPACE.match(text, end).end()
    return out


_JSON_CONTEXT = {
    "Expecting value": "looking for beginning of value",
    "Expecting property name enclosed in double quotes": "looking for beginning of object key string",
    "Expecting ':' delimiter": "after object key",
}


def _innermost_open(text: str, start: int, end: int) -> str:
    """The innermost unclosed bracket between start and end ("{" or "[")."""
    from kubelite.godepth import brackets

    stack: list[str] = []
    for c in brackets(text[start:end]):
        if c in "[{":
            stack.append(c)
        elif stack:
            stack.pop()
    return stack[-1] if stack else ""


_UNEXPECTED_EOF = "\0eof"


def _go_json_problem(text: str, start: int, exc: json.JSONDecodeError) -> str:
    """encoding/json's wording (``offset N: invalid character ...``) for a syntax error."""
    pos = exc.pos
    offset = len(text[:pos].encode("utf-8")) + 1
    if pos >= len(text) or exc.msg.startswith("Unterminated string"):
        return _UNEXPECTED_EOF
    char = text[pos]
    literal = {"t": "true", "f": "false", "n": "null"}.get(char)
    if literal and exc.msg == "Expecting value":
        for i, want in enumerate(literal):
            if pos + i >= len(text):
                return _UNEXPECTED_EOF
            got = text[pos + i]
            if got != want:
                where = len(text[:pos + i].encode("utf-8")) + 1
                return f"offset {where}: invalid character '{got}' in literal {literal} (expecting '{want}')"
    if exc.msg.startswith("Invalid \\"):  # \escape, \uXXXX escape: Go names the byte it stopped at
        found = _gojson.syntax_error_at(text[start:].encode())
        if found is not None:
            return f"offset {len(text[:start].encode()) + found[1]}: {found[0]}"
    shown = json.dumps(char)[1:-1] if char in "\n\t\r" else char
    if exc.msg.startswith("Invalid control character"):
        return f"offset {offset}: invalid character '{shown}' in string literal"
    if exc.msg == "Expecting ',' delimiter":
        inner = _innermost_open(text, start, pos)
        context = "after object key:value pair" if inner == "{" else "after array element"
    else:
        context = _JSON_CONTEXT.get(exc.msg)
    if context is None:
        return f"line {exc.lineno} column {exc.colno}: {exc.msg}"
    if char == "-" and exc.msg == "Expecting value" and pos + 1 < len(text) and not text[pos + 1].isdigit():
        return f"offset {offset + 1}: invalid character '{text[pos + 1]}' in numeric literal"
    return f"offset {offset}: invalid character '{shown}' {context}"


def _is_json(text: str) -> bool:
    return text.lstrip()[:1] == "{"


# -- checks ------------------------------------------------------------------------

def _kind_problems(value: object) -> list[str]:
    """kubectl's client-side validation of apiVersion and kind."""
    if not isinstance(value, dict):
        return ["invalid object to validate"]
    problems = []
    api_version = value.get("apiVersion")
    if api_version is None:
        problems.append("apiVersion not set")
    elif not isinstance(api_version, str):
        problems.append("apiVersion isn't string type")
    elif api_version.count("/") > 1:
        problems.append(f"unexpected GroupVersion string: {api_version}")
    kind = value.get("kind")
    if kind is None:
        problems.append("kind not set")
    elif not isinstance(kind, str):
        problems.append("kind isn't string type")
    return problems


def _validate(value: object) -> list[str]:
    problems = _kind_problems(value)
    if problems:
        return problems
    assert isinstance(value, dict)
    if value.get("apiVersion") == "v1" and value.get("kind") == "List":
        items = value.get("items")
        if not isinstance(items, list):
            return ["invalid object to validate"]
        for item in items:
            problems.extend(_kind_problems(item))
    return problems


def _string_field(obj: dict, name: str) -> str:
    value = obj.get(name)
    return value if isinstance(value, str) else ""


def _flatten(doc: dict, source: str) -> list[tuple[dict, int | None]]:
    """A document's objects: itself, or the items of a list, breadth first as kubectl."""
    if "items" not in doc:
        return [(doc, None)]
    items = doc["items"]
    if items is None:
        items = []
    if not isinstance(items, list):
        raise ManifestError(
            f'unable to decode "{source}": json: cannot unmarshal {json_kind(items)} into Go struct field '
            "decodeList.items of type []json.RawMessage")
    item_kind = _string_field(doc, "kind")
    item_kind = item_kind[:-4] if item_kind.endswith("List") else item_kind
    list_version = _string_field(doc, "apiVersion")
    queue: list[tuple[dict, int]] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ManifestError(
                f'unable to decode "{source}": json: cannot unmarshal {json_kind(item)} into Go value of type '
                "map[string]interface {}")
        if not _string_field(item, "kind") and not _string_field(item, "apiVersion"):
            item = dict(item, kind=item_kind, apiVersion=list_version)
        queue.append((item, index))
    out: list[tuple[dict, int | None]] = []
    for item, index in queue:
        if isinstance(item.get("items"), list):
            # kubectl cannot take a List apart when it sits inside another one
            raise ManifestError("*unstructured.Unstructured is not a list: no Items field in this object")
        out.append((item, index))
    return out


def _missing_kind(source: str, obj: dict) -> ManifestError:
    return ManifestError(f"unable to decode \"{source}\": Object 'Kind' is missing in '{to_compact_json(obj)}'")


_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def objects_from_text(text: str, source: str, validate: bool = True) -> list[Manifest]:
    """Every object in the text of one source, checked; raises ManifestError."""
    documents = _json_documents(text, source) if _is_json(text) else _yaml_documents(text, source)
    # escapes of half a UTF-16 pair: Go reads them as U+FFFD (the search is skipped in plain
    # ASCII without escapes, where it is a tenth of the reading)
    if ("\\u" in text or not text.isascii()) and _LONE_SURROGATE.search(text):
        documents = [_Document(without_lone_surrogates(d.value), d.line) for d in documents]
    manifests: list[Manifest] = []
    for index, doc in enumerate(documents):
        try:
            manifests.extend(_document_objects(doc, index, source, validate))
        except ManifestError as exc:
            exc.source, exc.line = source, exc.line or doc.line
            raise
    return manifests


def _document_objects(doc: _Document, index: int, source: str, validate: bool) -> list[Manifest]:
    manifests: list[Manifest] = []
    value = doc.value
    if value is None:
        return manifests
    if value.__class__ is dict and "items" not in value:
        # what nearly every document is, and passes every check below
        kind, api_version = value.get("kind"), value.get("apiVersion")
        if (kind.__class__ is str and kind and kind != "List" and api_version.__class__ is str and api_version
                and api_version.count("/") <= 1):
            return [Manifest(value, source, index, doc.line)]
    if validate:
        problems = _validate(doc.value)
        if problems:
            raise ManifestError(
                f'error validating "{source}": error validating data: {aggregate(problems)}; {_STOP_VALIDATE}',
                source, doc.line)
    if not isinstance(doc.value, dict):
        raise ManifestError(
            f'unable to decode "{source}": json: cannot unmarshal {json_kind(doc.value)} into Go value of '
            "type unstructured.detector")
    for obj, item in _flatten(doc.value, source):
        if not _string_field(obj, "kind"):
            raise _missing_kind(source, obj)
        if validate and not _string_field(obj, "apiVersion"):
            raise ManifestError(
                f"unable to decode \"{source}\": Object 'apiVersion' is missing in '{to_compact_json(obj)}'")
        manifests.append(Manifest(obj, source, index, doc.line, item))
    return manifests
