"""The scalars of the block-style YAML reader (_goyaml_block): keys and values on one line,
plain and single-quoted scalars that go on over several lines, literal scalars; and the
decline of anything else to libyaml's reader."""
from __future__ import annotations

import re

from ._goplain import _WORDS, _Uint, resolve_plain
from ._goyaml_values import DecodeError, json_number, key_string


class Decline(Exception):
    """The document has something only the full YAML reader may judge."""


GOES_ON = object()  # value_of's answer for a scalar that goes on to later lines (quoted or literal)

# The literal scalar headers read here: clipped or stripped, indentation found from the text.
_LITERAL_HEADERS = frozenset(("|", "|-"))
# (a quote followed by another is an escaped one, never the end)
_SINGLE = re.compile(r"'([^']*(?:''[^']*)*)'(?!')")
_SINGLE_END = re.compile(r"([^']*(?:''[^']*)*)'(?!')")
_DOUBLE = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"')
# go-yaml v2's escapes in double quotes. libyaml has no "\'" and takes "\/", which go-yaml
# refuses: the libyaml reader's GoYamlPyLoader reads both as go-yaml does (and words the error).
ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
           "e": "\x1b", " ": " ", '"': '"', "'": "'", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
           "P": "\u2029"}
HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
HEX = frozenset("0123456789abcdefABCDEF")

# Indicators that start something other than a plain scalar (flow collections, comments,
# anchors, aliases, tags, block scalars, quotes, directives, reserved).
_NOT_PLAIN = frozenset(",[]{}#&*!|>'\"%@`")
# "-", "?" and ":" start a plain scalar only when a non-space follows.
_INDICATOR_IF_SPACED = frozenset("-?:")
# First characters of the plain scalars go-yaml may resolve to something other than a string.
RESOLVABLE = frozenset("yYnNtTfFoO~.+-0123456789")
# First characters of the plain scalars that are strings whatever follows.
_STRING_START = frozenset(chr(c) for c in range(0x21, 0x7f)) - _NOT_PLAIN - _INDICATOR_IF_SPACED - RESOLVABLE
# The plain scalars go-yaml reads as booleans or null whose first character is a letter or
# "~" (no number starts so): their values, and what they become as keys (None: an error).
WORD_START = frozenset("yYnNtTfFoO~")
WORD_VALUES = {word: value for word, value in _WORDS.items() if word[:1] in WORD_START}
_WORD_KEYS = {word: None if value is None else "true" if value else "false" for word, value in WORD_VALUES.items()}
WORD_OR_STRING_START = WORD_START | _STRING_START
# libyaml forgets a simple key's start 1024 characters on; such keys are left to it.
_LONGEST_KEY = 1000
DEEPEST = 100


def fold(lines: list[tuple[str, str, str, str]], number: int, at: int, container, is_seq: bool) -> int:
    """Puts together the multi-line plain scalar of lines[number - 1] in the collection at
    indent ``at``, as libyaml folds it; returns the number of the first line after it."""
    indent, item, key, text = lines[number - 1]
    column = len(indent) + len(item)  # where the previous line's key or scalar starts
    if is_seq:
        column -= len(item)
        if not item or key or column != at or entry(text)[0] is not None:
            raise Decline  # not a scalar item of this sequence
    elif column != at:
        raise Decline  # not an entry of this mapping
    elif key:
        if key[0] in RESOLVABLE:
            key = word_key(key) if key[0] in WORD_START else plain_key(key)
    elif text and text[0] != "#":
        key, text = entry(text)
        if key is None:
            raise Decline
    else:
        raise Decline
    parts = [_plain_part(text)]
    breaks = 1
    for number in range(number, len(lines)):
        indent, item, next_key, text = lines[number]
        if not (item or next_key or text):
            breaks += 1  # an empty line: a line break of its own
            continue
        if len(indent) <= at:
            break  # the scalar ended
        if item or next_key:
            raise Decline  # what libyaml makes of it is its own business
        if text[0] == "#":
            break  # a comment ends the scalar
        parts.append(" " if breaks == 1 else "\n" * (breaks - 1))
        parts.append(_plain_part(text))
        breaks = 1
    else:
        number = len(lines)
    value = "".join(parts)
    if value[0] in RESOLVABLE:
        try:
            value = json_number(resolve_plain(value))
        except DecodeError:
            raise Decline from None
    if is_seq:
        container[-1] = value
    else:
        container[key] = value
    return number


def _plain_part(text: str) -> str:
    """One line's part of a multi-line plain scalar: all of it, or a decline."""
    text = text.rstrip(" ")
    first = text[:1]
    if (not first or first in _NOT_PLAIN or (first in _INDICATOR_IF_SPACED and text[1:2] in (" ", "")) or ": " in text
            or " #" in text or text[-1] == ":"):
        raise Decline
    return text


def word_key(text: str) -> str:
    key = _WORD_KEYS.get(text, text)
    if key is None:
        raise Decline  # go-yaml's error, with its line
    return key


def plain_key(text: str) -> str:
    resolved = resolve_plain(text)
    if resolved is None or isinstance(resolved, _Uint):
        raise Decline  # go-yaml's error, with its line
    return key_string(resolved, None)


def entry(text: str) -> tuple[str | None, str]:
    """(key, what follows "key:") when the text starts with a key, else (None, text)."""
    text = text.rstrip(" ")
    first = text[0]
    if first == "'" or first == '"':
        if first == "'" and _SINGLE.match(text) is None:
            return None, text  # a scalar that goes on to later lines (no key can)
        quoted, end = _quoted(text)
        after = text[end:].lstrip(" ")
        if after[:1] == ":" and (len(after) == 1 or after[1] == " "):
            if end > _LONGEST_KEY:
                raise Decline
            return quoted, after[1:].lstrip(" ")
        return None, text
    sep = text.find(": ")
    if sep < 0:
        if text[-1] != ":":
            return None, text
        sep = len(text) - 1
    comment = text.find(" #")
    if 0 <= comment < sep:
        return None, text
    if first in _NOT_PLAIN or (first in _INDICATOR_IF_SPACED and text[1:2] in (" ", "")) or sep > _LONGEST_KEY:
        raise Decline
    key = text[:sep].rstrip(" ")
    if first in WORD_START:
        key = word_key(key)
    elif first in RESOLVABLE:
        key = plain_key(key)
    elif key == "<<":
        raise Decline  # a merge key
    return key, text[sep + 1:].lstrip(" ")


def value_of(text: str) -> object:
    """The value of a scalar, ``{}`` or ``[]`` that is all there is on the rest of the line."""
    text = text.rstrip(" ")
    first = text[0]
    if first == "'" or first == '"':
        if first == "'" and _SINGLE.match(text) is None:
            return GOES_ON
        quoted, end = _quoted(text)
        if not _only_comment(text[end:]):
            raise Decline
        return quoted
    if first == "|" and text in _LITERAL_HEADERS:
        return GOES_ON
    if first == "{" or first == "[":
        if text[1:2] == ("}" if first == "{" else "]") and _only_comment(text[2:]):
            return {} if first == "{" else []
        raise Decline
    if first in _NOT_PLAIN or (first in _INDICATOR_IF_SPACED and (len(text) == 1 or text[1] == " ")):
        raise Decline
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment].rstrip(" ")
    if ": " in text or text[-1] == ":":
        raise Decline  # "mapping values are not allowed in this context"
    if first not in RESOLVABLE:
        return text
    if first in WORD_START:
        return WORD_VALUES.get(text, text)
    if text.isdigit() and first != "0" and len(text) < 19 and text.isascii():
        return int(text)  # a decimal int64 (a leading 0 is octal)
    resolved = resolve_plain(text)
    if resolved.__class__ is str:
        return resolved
    try:
        return json_number(resolved)
    except DecodeError:
        raise Decline from None  # the full reader reports it, after any syntax error


def later_lines(lines: list[tuple[str, str, str, str]], number: int, at: int, first: str, text: str
                 ) -> tuple[str, int]:
    """The scalar that starts with ``first`` on lines[number] and goes on to later lines, and the
    number of the line after it."""
    if first[0] == "'":
        return _quoted_lines(lines, number, at, first)
    return _literal_lines(text.split("\n"), number, at, first)


def _literal_lines(raw: list[str], number: int, at: int, header: str) -> tuple[str, int]:
    """A literal scalar (``|`` or ``|-``) whose header ends lines[number], as libyaml reads it:
    its indent is its first line's, deeper than ``at``; lines less indented end it."""
    if raw[-1]:
        raise Decline  # no line break at the end, which the chomping would look at
    content: list[str] = []
    indent = 0
    blank_run = 0  # the empty lines since the last line with text
    for number in range(number + 1, len(raw) - 1):
        line = raw[number]
        body = line.lstrip(" ")
        spaces = len(line) - len(body)
        if not indent:
            if not body:
                if spaces > at + 1:
                    raise Decline  # a leading empty line that would set the indent
                blank_run += 1
                continue
            if spaces <= at:
                raise Decline  # an empty scalar
            indent = spaces
        elif spaces < indent and body:
            break
        if not body and spaces <= indent:
            blank_run += 1
            continue
        content.extend([""] * blank_run)
        blank_run = 0
        content.append(line[indent:])
    else:
        number = len(raw) - 1
    if not content:
        raise Decline
    value = "\n".join(content)
    return (value if header.startswith("|-") else value + "\n"), number


def _quoted_lines(lines: list[tuple[str, str, str, str]], number: int, at: int, first: str) -> tuple[str, int]:
    """A single-quoted scalar that opens in ``first`` (on lines[number]) and closes on a later
    line deeper than ``at``, folded as libyaml folds it; and the number of the line after it."""
    parts = [first[1:].rstrip(" ")]
    breaks = 1
    for number in range(number + 1, len(lines)):
        indent, item, key, text = lines[number]
        if item or key:
            raise Decline  # (the line's own text is not kept)
        if not text:
            breaks += 1
            continue
        if len(indent) <= at:
            raise Decline
        parts.append(" " if breaks == 1 else "\n" * (breaks - 1))
        breaks = 1
        match = _SINGLE_END.match(text)
        if match is None:
            parts.append(text.rstrip(" "))
            continue
        parts.append(match.group(1))
        if not _only_comment(text[match.end():].rstrip(" ")):
            raise Decline
        return "".join(parts).replace("''", "'"), number + 1
    raise Decline  # never closed


def _only_comment(rest: str) -> bool:
    """Whether what follows a value on its line is nothing or a comment (which needs a space)."""
    return not rest or (rest[0] == " " and rest.lstrip(" ")[:1] == "#")


def _quoted(text: str) -> tuple[str, int]:
    """A one-line quoted scalar at the start of text, and where it ends."""
    single = text[0] == "'"
    match = (_SINGLE if single else _DOUBLE).match(text)
    if match is None:
        raise Decline
    value = match.group(1)
    if single:
        if "''" in value:
            value = value.replace("''", "'")
    elif "\\" in value:
        value = _unescape(value)
    return value, match.end()


def _unescape(text: str) -> str:
    """The text of a double-quoted scalar with its escapes replaced (an unknown one declined)."""
    out = []
    start = 0
    while True:
        at = text.find("\\", start)
        if at < 0:
            out.append(text[start:])
            return "".join(out)
        out.append(text[start:at])
        code = text[at + 1]
        if code in ESCAPES:
            out.append(ESCAPES[code])
            start = at + 2
            continue
        width = HEX_DIGITS.get(code)
        digits = text[at + 2:at + 2 + width] if width else ""
        if not width or len(digits) != width or not HEX.issuperset(digits):
            raise Decline  # libyaml's error
        point = int(digits, 16)
        if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
            raise Decline
        out.append(chr(point))
        start = at + 2 + width
