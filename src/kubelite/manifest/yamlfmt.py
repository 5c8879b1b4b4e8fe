"""YAML text exactly as ``kubectl -o yaml`` prints it.

kubectl's YAML printer marshals the object to JSON and converts that with
sigs.k8s.io/yaml, i.e. go-yaml v2 re-reads the JSON and emits it. So the
text follows go-yaml v2's emitter (a port of libyaml): block style with two
spaces of indentation, sequences inside mappings not indented (``- `` at
the key's column), empty collections as ``{}`` / ``[]``, map keys in go-yaml's
"natural" order (digit runs compare as numbers), strings that would read
back as another type double-quoted, strings with line breaks as literal
blocks (``|``, ``|-``, ``|+``, ``|2``), and lines longer than 80 columns
folded at spaces. The rules below follow that emitter's decisions one by one.
"""
from __future__ import annotations

import functools
import math
import re

from . import _gonum
from ._goplain import resolve_plain
from .errors import ManifestError

_BEST_WIDTH = 80
_BEST_INDENT = 2

PLAIN, SINGLE, DOUBLE, LITERAL = range(4)

_BREAKS = frozenset("\r\n\x85\u2028\u2029")
_BLANKZ = frozenset(" \t\r\n\x85\u2028\u2029\x00")
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_LATER_FLOW = frozenset(",?[]{}")

# Strings made of these characters need no character analysis: only the
# "would it read back as something else" question remains.
_SIMPLE = re.compile(r"[A-Za-z0-9_./-]+(?: [A-Za-z0-9_./-]+)*\Z")
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:"
    r"([Tt])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))"
    r"|( )(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?"
    r")?\Z"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _printable(c: str) -> bool:
    o = ord(c)
    if o < 0x7F:
        return o >= 0x20 or o == 0x0A
    return 0xA0 <= o <= 0xD7FF or (0xE000 <= o <= 0xFFFD and o != 0xFEFF)


def _is_timestamp(s: str) -> bool:
    """go-yaml v2 reads s as a timestamp (time.Parse with its four layouts)."""
    m = _TIMESTAMP.match(s)
    if not m:
        return False
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= (_DAYS[month - 1] if month != 2 or leap else 28):
        return False
    if m.group(4):
        h, mi, sec = int(m.group(5)), int(m.group(6)), int(m.group(7))
        if m.group(8) is not None and (int(m.group(8)) > 24 or int(m.group(9)) > 59):
            return False
    elif m.group(10):
        h, mi, sec = int(m.group(11)), int(m.group(12)), int(m.group(13))
    else:
        return True
    return h < 24 and mi < 60 and sec < 60


def _reads_as_string(s: str) -> bool:
    """A plain scalar s would come back as the same string (go-yaml v2's resolve)."""
    if not s:
        return False
    if s[0] in "+-0123456789" and s[:4].isdigit() and _is_timestamp(s):
        return False
    return isinstance(resolve_plain(s), str)


class _Analysis:
    __slots__ = ("multiline", "block_plain", "single", "block")

    def __init__(self, multiline: bool, block_plain: bool, single: bool, block: bool):
        self.multiline = multiline
        self.block_plain = block_plain
        self.single = single
        self.block = block


def _analyze(s: str) -> _Analysis:
    """The emitter's reading of a scalar: which styles can carry it."""
    if not s:
        return _Analysis(False, True, True, False)
    block_ind = s.startswith("---") or s.startswith("...")
    line_breaks = special = False
    leading = trailing_space = trailing_break = break_space = space_break = False
    preceded_ws = True
    prev_space = prev_break = False
    n = len(s)
    last = n - 1
    for i, c in enumerate(s):
        followed_ws = i == last or s[i + 1] in " \t"
        if i == 0:
            if c in _FIRST_INDICATORS:
                block_ind = True
            elif c == "?" or c == ":":
                if followed_ws:
                    block_ind = True
            elif c == "-" and followed_ws:
                block_ind = True
        elif c == ":":
            if followed_ws:
                block_ind = True
        elif c == "#" and preceded_ws:
            block_ind = True
        if not _printable(c):
            special = True
        if c == " ":
            if i == 0:
                leading = True
            if i == last:
                trailing_space = True
            if prev_break:
                break_space = True
            prev_space, prev_break = True, False
        elif c in _BREAKS:
            line_breaks = True
            if i == 0:
                leading = True
            if i == last:
                trailing_break = True
            if prev_space:
                space_break = True
            prev_space, prev_break = False, True
        else:
            prev_space = prev_break = False
        preceded_ws = c in _BLANKZ
    block_plain = not (leading or trailing_space or trailing_break or break_space
                       or space_break or special or line_breaks or block_ind)
    single = not (break_space or space_break or special)
    block = not (trailing_space or space_break or special)
    return _Analysis(line_breaks, block_plain, single, block)


@functools.lru_cache(maxsize=None)
def _unreadable() -> re.Pattern:
    """Characters that encoding/json leaves raw but go-yaml's reader refuses: kubectl's YAML printer
    fails on them. (Compiled on the first non-ASCII string: its ranges cost ~0.5 ms.)"""
    return re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff\ud800-\udfff]")


@functools.lru_cache(maxsize=8192)
def _string_style(s: str, simple_key: bool) -> int:
    """The style go-yaml v2 gives a string value (or a simple key)."""
    if not s.isascii() or "\x7f" in s:
        if _unreadable().search(s):
            raise ManifestError("yaml: control characters are not allowed")
    if "\n" in s:
        requested = LITERAL
    elif _reads_as_string(s) and not (s[0] in "+-0123456789" and ":" in s and _BASE60.match(s)):
        requested = PLAIN
    else:
        requested = DOUBLE
    if (requested == PLAIN and _SIMPLE.match(s) and not (s.startswith("---") or s.startswith("..."))
            and not (s[0] == "-" and (len(s) == 1 or s[1] == " "))):
        return PLAIN
    a = _analyze(s)
    style = requested
    if simple_key and a.multiline:
        style = DOUBLE
    if style == PLAIN and not a.block_plain:
        style = SINGLE
    if style == SINGLE and not a.single:
        style = DOUBLE
    if style == LITERAL and (not a.block or simple_key):
        style = DOUBLE
    return style


@functools.lru_cache(maxsize=8192)
def _is_multiline(s: str) -> bool:
    return not _BREAKS.isdisjoint(s)


_NEL_RUN = re.compile("[ ]*\x85[ \x85]*")


def _fold_nel(s: str) -> str:
    """What go-yaml reads back for a JSON string holding raw U+0085.

    encoding/json writes NEL unescaped, and in a double-quoted YAML scalar it
    is a line break: one folds to a space, n of them to n-1 newlines, and the
    spaces around them vanish.
    """
    def fold(m: re.Match) -> str:
        n = m.group().count("\x85")
        return " " if n == 1 else "\n" * (n - 1)

    return _NEL_RUN.sub(fold, s)


def _escape(c: str) -> str:
    o = ord(c)
    short = _SHORT_ESCAPES.get(o)
    if short is not None:
        return "\\" + short
    if o <= 0xFF:
        return "\\x%02X" % o
    if o <= 0xFFFF:
        return "\\u%04X" % o
    return "\\U%08X" % o


_SHORT_ESCAPES = {
    0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f",
    0x0D: "r", 0x1B: "e", 0x22: '"', 0x5C: "\\", 0x85: "N", 0xA0: "_",
    0x2028: "L", 0x2029: "P",
}


# -- sorting -----------------------------------------------------------------

_PLAIN_ORDER = re.compile(r"[A-Za-z !-/:-@]*\Z")


def _key_less(a: str, b: str) -> bool:
    """go-yaml v2's ordering of string map keys (letters, then digit runs by value)."""
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            continue
        al, bl = ca.isalpha(), cb.isalpha()
        if al and bl:
            return ca < cb
        if al or bl:
            return bl
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and a[j].isdecimal():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and a[ai].isdecimal():
            an = an * 10 + (ord(a[ai]) - 48)
            ai += 1
        bi = i
        while bi < len(b) and b[bi].isdecimal():
            bn = bn * 10 + (ord(b[bi]) - 48)
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)


def _key_cmp(a: str, b: str) -> int:
    if _key_less(a, b):
        return -1
    if _key_less(b, a):
        return 1
    return 0


_KEY = functools.cmp_to_key(_key_cmp)


def sorted_keys(mapping: dict) -> list:
    """The keys of a mapping in the order go-yaml v2 writes them."""
    keys = list(mapping)
    for k in keys:
        if not isinstance(k, str):
            raise ManifestError(f"yaml: unsupported map key type {type(k).__name__}")
        if not _PLAIN_ORDER.match(k):
            keys.sort(key=_KEY)
            return keys
    # Only letters and the punctuation below "A" (no digits): go-yaml's
    # order equals code point order for these.
    keys.sort()
    return keys


# -- scalars other than strings --------------------------------------------------

def number_text(value: int | float) -> str:
    """How a number of the object prints after the JSON round trip."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ManifestError("json: unsupported value: " + _gonum.go_g(value))
        text = _gonum.json_float(value)
        if "e" not in text and "." not in text:
            n = int(text)
            if _gonum.INT64_MIN <= n <= _gonum.UINT64_MAX:
                return text
        return _gonum.go_g(value)
    if _gonum.INT64_MIN <= value <= _gonum.UINT64_MAX:
        return str(value)
    return _gonum.go_g(float(value))


# -- the emitter -------------------------------------------------------------------

class _Emitter:
    """The subset of libyaml's block emitter that JSON values reach."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "indents")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.indents: list[int] = []

    # low-level writes
    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0

    def write_indent(self) -> None:
        indent = self.indent if self.indent > 0 else 0
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.out.append("\n")
            self.column = 0
        if self.column < indent:
            self.out.append(" " * (indent - self.column))
            self.column = indent
        self.whitespace = True
        self.indention = True

    def write_indicator(self, text: str, need_ws: bool, is_ws: bool, is_indention: bool) -> None:
        if need_ws and not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(text)
        self.column += len(text)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    def increase_indent(self, flow: bool, indentless: bool) -> None:
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = _BEST_INDENT if flow else 0
        elif not indentless:
            self.indent += _BEST_INDENT

    def pop_indent(self) -> None:
        self.indent = self.indents.pop()

    # nodes
    def node(self, value: object, mapping: bool, simple_key: bool) -> None:
        if isinstance(value, str):
            if "\x85" in value:
                value = _fold_nel(value)
            self.scalar(value, _string_style(value, simple_key), simple_key)
        elif isinstance(value, dict):
            if value:
                self.block_mapping(value)
            else:
                self.empty("{}")
        elif isinstance(value, (list, tuple)):
            if value:
                self.block_sequence(value, mapping)
            else:
                self.empty("[]")
        elif value is None:
            self.scalar("null", PLAIN, simple_key)
        elif value is True:
            self.scalar("true", PLAIN, simple_key)
        elif value is False:
            self.scalar("false", PLAIN, simple_key)
        elif isinstance(value, (int, float)):
            self.scalar(number_text(value), PLAIN, simple_key)
        else:
            raise ManifestError(f"yaml: cannot print a value of type {type(value).__name__}")

    def empty(self, pair: str) -> None:
        self.write_indicator(pair[0], True, True, False)
        self.write_indicator(pair[1], False, False, False)

    def block_mapping(self, mapping: dict) -> None:
        self.increase_indent(False, False)
        for key in sorted_keys(mapping):
            value = mapping[key]
            if "\x85" in key:
                # the JSON key spans lines for go-yaml: kubectl's printer fails
                raise ManifestError("yaml: did not find expected ',' or '}'")
            self.write_indent()
            simple = len(key.encode("utf-8")) <= 128 and not _is_multiline(key)
            if simple:
                self.node(key, True, True)
                self.write_indicator(":", False, False, False)
            else:
                self.write_indicator("?", True, False, True)
                self.node(key, True, False)
                self.write_indent()
                self.write_indicator(":", True, False, True)
            self.node(value, True, False)
        self.pop_indent()

    def block_sequence(self, items, mapping: bool) -> None:
        self.increase_indent(False, mapping and not self.indention)
        for item in items:
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.node(item, False, False)
        self.pop_indent()

    def scalar(self, text: str, style: int, simple_key: bool) -> None:
        self.increase_indent(True, False)
        allow_breaks = not simple_key
        if style == PLAIN:
            self.plain(text, allow_breaks)
        elif style == DOUBLE:
            self.double_quoted(text, allow_breaks)
        elif style == SINGLE:
            self.single_quoted(text, allow_breaks)
        else:
            self.literal(text)
        self.pop_indent()

    def _fits(self, text: str) -> bool:
        # no space can be reached past the width: nothing will fold
        return self.column + len(text) <= _BEST_WIDTH + 1

    def plain(self, text: str, allow_breaks: bool) -> None:
        if not self.whitespace:
            self.out.append(" ")
            self.column += 1
        if not allow_breaks or self._fits(text) or " " not in text:
            self.out.append(text)
            self.column += len(text)
        else:
            spaces = False
            n = len(text)
            for i, c in enumerate(text):
                if c == " ":
                    if not spaces and self.column > _BEST_WIDTH and i + 1 < n and text[i + 1] != " ":
                        self.write_indent()
                    else:
                        self.out.append(c)
                        self.column += 1
                    spaces = True
                else:
                    self.out.append(c)
                    self.column += 1
                    self.indention = False
                    spaces = False
        self.whitespace = False
        self.indention = False

    def single_quoted(self, text: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        if _BREAKS.isdisjoint(text) and (not allow_breaks or self._fits(text)):
            body = text.replace("'", "''")
            self.out.append(body)
            self.column += len(body)
        else:
            spaces = breaks = False
            n = len(text)
            for i, c in enumerate(text):
                if c == " ":
                    if (allow_breaks and not spaces and self.column > _BEST_WIDTH
                            and 0 < i < n - 1 and text[i + 1] != " "):
                        self.write_indent()
                    else:
                        self.out.append(c)
                        self.column += 1
                    spaces = True
                elif c in _BREAKS:
                    if not breaks and c == "\n":
                        self.put_break()
                    self.out.append(c)
                    self.column = 0
                    self.indention = True
                    breaks = True
                else:
                    if breaks:
                        self.write_indent()
                    if c == "'":
                        self.out.append("'")
                        self.column += 1
                    self.out.append(c)
                    self.column += 1
                    self.indention = False
                    spaces = breaks = False
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def double_quoted(self, text: str, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        escape_all = text.startswith("\ufeff")  # libyaml tests the BOM at offset 0 for every character
        if not escape_all and _quote_safe(text) and (not allow_breaks or self._fits(text)):
            self.out.append(text)
            self.column += len(text)
        else:
            spaces = False
            n = len(text)
            for i, c in enumerate(text):
                if escape_all or c == '"' or c == "\\" or c in _BREAKS or not _printable(c):
                    e = _escape(c)
                    self.out.append(e)
                    self.column += len(e)
                    spaces = False
                elif c == " ":
                    if allow_breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < n - 1:
                        self.write_indent()
                        if text[i + 1] == " ":
                            self.out.append("\\")
                            self.column += 1
                    else:
                        self.out.append(c)
                        self.column += 1
                    spaces = True
                else:
                    self.out.append(c)
                    self.column += 1
                    spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def literal(self, text: str) -> None:
        self.write_indicator("|", True, False, False)
        if text[0] == " " or text[0] in _BREAKS:
            self.write_indicator(str(_BEST_INDENT), False, False, False)
        if text[-1] not in _BREAKS:
            self.write_indicator("-", False, False, False)
        elif len(text) == 1 or text[-2] in _BREAKS:
            self.write_indicator("+", False, False, False)
        self.put_break()
        self.indention = True
        self.whitespace = True
        breaks = True
        pad = " " * (self.indent if self.indent > 0 else 0)
        if "\n" in text and _BREAKS.isdisjoint(text.replace("\n", "")):
            # common case: only \n breaks; write whole lines
            lines = text.split("\n")
            for idx, line in enumerate(lines):
                if line:
                    self.out.append(pad)
                    self.out.append(line)
                    self.column = len(pad) + len(line)
                    self.indention = False
                if idx != len(lines) - 1:
                    self.out.append("\n")
                    self.column = 0
                    self.indention = True
            return
        for c in text:
            if c in _BREAKS:
                self.out.append(c)
                self.column = 0
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.out.append(c)
                self.column += 1
                self.indention = False
                breaks = False

    def document(self, value: object) -> str:
        self.node(value, False, False)
        # document end: finish the last line
        self.indent = -1
        self.write_indent()
        return "".join(self.out)


# What a double-quoted scalar may carry unescaped. Nearly every one is ASCII (resourceVersion,
# "true"), for which printable ASCII but the quote and the backslash decides; the full set's
# Unicode ranges take ~2 ms to compile, paid only for other text.
_QUOTE_SAFE_ASCII = re.compile(r"[ !#-\[\]-~]*\Z")


@functools.lru_cache(maxsize=None)
def _quote_safe_unicode() -> re.Pattern:
    return re.compile("[ !#-\\[\\]-~\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*\\Z")


def _quote_safe(text: str) -> bool:
    return (_QUOTE_SAFE_ASCII if text.isascii() else _quote_safe_unicode()).match(text) is not None


def to_yaml(obj: object) -> str:
    """The text ``kubectl get -o yaml`` prints for ``obj``, final newline included."""
    try:
        return _Emitter().document(obj)
    except RecursionError:
        raise ManifestError("yaml: object nests too deeply to print") from None
