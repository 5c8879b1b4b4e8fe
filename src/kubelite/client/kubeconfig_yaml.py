"""Reading the kubeconfig files kubectl and kubelite write, without importing PyYAML.

Every command that talks to a server reads a kubeconfig first, and importing PyYAML costs a
short command as much as everything else it reads. The files kubectl (`config set-*`, client-go's
writer), kind, kubeadm and `kubelite serve` write use a small part of YAML: block mappings and
block sequences, plain words, quoted strings without escapes, `{}` and `[]`. `load()` reads
exactly that part and answers what yaml.safe_load would (YAML 1.1 booleans and nulls, plain
decimal integers); for anything else (flow collections, block scalars, anchors, tags, escapes,
comments after a value, numbers other than plain decimals...) it answers None and the caller
uses PyYAML. Tests compare it with yaml.safe_load.
"""
from __future__ import annotations

import re

# A plain scalar as read here: no spaces, no indicator at the start, nothing YAML would treat
# specially inside (": " and " #" cannot occur without spaces; a trailing ":" is excluded below).
_PLAIN = re.compile(r"[A-Za-z0-9_/.+-][A-Za-z0-9_./:@+=%?&~,\[\]{}-]*\Z")
# Every character YAML 1.1's int, float and timestamp forms use (PyYAML tries them on words that
# start with a digit, a sign or a dot): a word with any other character is a string.
_NUMERIC_CHARS = frozenset("0123456789_.:+-eExXabcdfABCDFtTzZiInN")
_BOOL = {**dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
         **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_NULL = ("~", "null", "Null", "NULL")
_INT = re.compile(r"(?:0|[1-9][0-9]*)\Z")


class Unsupported(Exception):
    """Outside the part of YAML read here: PyYAML must read the file."""


def load(text: str):
    """The document as yaml.safe_load reads it, or None when the text is outside the subset."""
    if "\t" in text or "\r" in text:
        return None
    lines = []
    for raw in text.split("\n"):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped in ("---", "...") or stripped.startswith(("--- ", "%")):
            return None
        lines.append((len(raw) - len(raw.lstrip(" ")), raw.strip(" ")))
    if not lines:
        return None  # empty or comments only: PyYAML's None (the caller treats it as {})
    try:
        value, end = _block(lines, 0, lines[0][0])
    except Unsupported:
        return None
    return value if end == len(lines) and isinstance(value, dict) else None


def _block(lines: list, at: int, indent: int):
    if lines[at][1] == "-" or lines[at][1].startswith("- "):
        return _sequence(lines, at, indent)
    return _mapping(lines, at, indent)


def _mapping(lines: list, at: int, indent: int):
    out: dict = {}
    while at < len(lines) and lines[at][0] == indent and not _is_item(lines[at][1]):
        key, rest = _split_key(lines[at][1])
        at += 1
        if rest:
            out[key] = _scalar(rest)
        elif at < len(lines) and (lines[at][0] > indent or (lines[at][0] == indent and _is_item(lines[at][1]))):
            out[key], at = _block(lines, at, lines[at][0])
        else:
            out[key] = None
    if at < len(lines) and lines[at][0] > indent:
        raise Unsupported("a line deeper than its mapping")
    return out, at


def _sequence(lines: list, at: int, indent: int):
    out: list = []
    while at < len(lines) and lines[at][0] == indent and _is_item(lines[at][1]):
        rest = lines[at][1][1:].lstrip(" ")
        if not rest:
            at += 1
            if at < len(lines) and lines[at][0] > indent:
                value, at = _block(lines, at, lines[at][0])
            else:
                value = None
        elif rest.startswith("- ") or rest == "-":
            raise Unsupported("a sequence inside a sequence item's line")
        elif _key_split(rest) is not None:
            # `- key: value` opens a mapping whose keys stand at the column of `key`
            column = indent + (len(lines[at][1]) - len(rest))
            lines[at] = (column, rest)
            value, at = _mapping(lines, at, column)
        else:
            value = _scalar(rest)
            at += 1
        out.append(value)
    if at < len(lines) and lines[at][0] > indent:
        raise Unsupported("a line deeper than its sequence")
    return out, at


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _key_split(content: str):
    """(key text, rest) when the line is `key:` or `key: value`; None otherwise."""
    if content[:1] in ("'", '"'):
        quote = content[0]
        end = content.find(quote, 1)
        while quote == "'" and end != -1 and content[end + 1:end + 2] == "'":
            end = content.find(quote, end + 2)
        if end == -1 or content[end + 1:end + 2] != ":" or content[end + 2:end + 3] not in ("", " "):
            return None
        return content[:end + 1], content[end + 2:].lstrip(" ")
    at = content.find(": ")
    if at == -1:
        return (content[:-1], "") if content.endswith(":") else None
    return content[:at], content[at + 2:].lstrip(" ")


def _split_key(content: str):
    split = _key_split(content)
    if split is None:
        raise Unsupported("not a key")
    key = _scalar(split[0])
    if not isinstance(key, str):
        raise Unsupported("a key that is not a string")
    return key, split[1]


def _scalar(text: str):
    if text in ("{}", "[]"):
        return {} if text == "{}" else []
    if text[0] == "'":
        if len(text) < 2 or not text.endswith("'") or "'" in text[1:-1].replace("''", ""):
            raise Unsupported("single-quoted")
        return text[1:-1].replace("''", "'")
    if text[0] == '"':
        if len(text) < 2 or not text.endswith('"') or '"' in text[1:-1] or "\\" in text:
            raise Unsupported("double-quoted")
        return text[1:-1]
    if text == "-" or not _PLAIN.match(text) or text.endswith(":"):
        raise Unsupported("plain")
    if text in _BOOL:
        return _BOOL[text]
    if text in _NULL:
        return None
    if text[0] in "0123456789+-.":
        if _INT.match(text):
            return int(text)
        if all(c in _NUMERIC_CHARS for c in text):
            raise Unsupported("a number-like word")  # floats, octals, sexagesimals, dates: PyYAML's rules
    return text
