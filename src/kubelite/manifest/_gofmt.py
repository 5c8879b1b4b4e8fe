"""Go's fmt (Sprint, Sprintln, Sprintf) over the values a template sees once kubectl has decoded an
object from JSON: float64 numbers, int (template constants, len), uint8 (bytes), strings, bools,
nil, maps and lists. Value layout (%v) is jsonpath's go_sprint; this adds the verbs and flags."""
from __future__ import annotations

import re
from typing import Any

from kubelite.manifest.jsonpath import _go_float, go_quote, go_sharp_v, go_sprint


def type_name(value: Any) -> str:
    from kubelite.manifest.gotemplate import _Int64, _Uint8

    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Uint8):
        return "uint8"
    if isinstance(value, _Int64):
        return "int64"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return type(value).__name__


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def sprint(values: list) -> str:
    """fmt.Sprint: a space between operands when neither is a string."""
    out = []
    for i, value in enumerate(values):
        if i > 0 and not _is_string(value) and not _is_string(values[i - 1]):
            out.append(" ")
        out.append(_text(value))
    return "".join(out)


def _text(value: Any) -> str:
    from kubelite.manifest.gotemplate import INVALID

    return "<no value>" if value is INVALID else go_sprint(value)


def sprintln(values: list) -> str:
    return " ".join(go_sprint(v) for v in values) + "\n"


_DIRECTIVE = re.compile(r"%([-+# 0]*)(\d+|\*)?(?:\.(\d+|\*)?)?(.?)", re.S)


def sprintf(fmt: str, args: list) -> str:
    out: list[str] = []
    used = 0
    i = 0
    while i < len(fmt):
        pct = fmt.find("%", i)
        if pct < 0:
            out.append(fmt[i:])
            break
        out.append(fmt[i:pct])
        m = _DIRECTIVE.match(fmt, pct)
        flags, width, precision, verb = m.group(1), m.group(2), m.group(3), m.group(4)
        has_precision = "." in fmt[pct:m.end()].rstrip(verb) if verb else "." in fmt[pct:m.end()]
        i = m.end()
        if verb == "":
            out.append("%!(NOVERB)")
            break
        if verb == "%":
            out.append("%")
            continue
        if width == "*" or precision == "*":
            out.append("%!(BADWIDTH)" if width == "*" else "%!(BADPREC)")
            continue
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        value = args[used]
        used += 1
        spec = _Spec(flags, int(width) if width else None,
                     (int(precision) if precision else 0) if has_precision else None)
        out.append(_format(value, verb, spec))
    if used < len(args):
        extra = ", ".join(f"{type_name(v)}={go_sprint(v)}" if v is not None else "<nil>" for v in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


class _Spec:
    def __init__(self, flags: str, width: int | None, precision: int | None):
        self.minus = "-" in flags
        self.plus = "+" in flags
        self.sharp = "#" in flags
        self.space = " " in flags
        self.zero = "0" in flags and not self.minus
        self.width = width
        self.precision = precision

    def pad(self, text: str, numeric: bool = False, zero: bool = True) -> str:
        if self.width is None or len(text) >= self.width:
            return text
        fill = self.width - len(text)
        if self.minus:
            return text + " " * fill
        if not zero:  # an integer with a precision ignores the 0 flag
            return " " * fill + text
        if self.zero and numeric:
            sign = text[0] if text[:1] in "+- " else ""
            return sign + "0" * fill + text[len(sign):]
        if self.zero and not numeric:
            return "0" * fill + text
        return " " * fill + text


def _bad(value: Any, verb: str, spec: "_Spec | None" = None) -> str:
    """fmt's %!verb(type=value), the value printed with %v and the directive's flags."""
    if value is None:
        return f"%!{verb}(<nil>)"
    shown = _format(value, "v", spec) if spec is not None else go_sprint(value)
    return f"%!{verb}({type_name(value)}={shown})"


def _format(value: Any, verb: str, spec: _Spec) -> str:
    if verb == "T":
        return spec.pad(type_name(value) if value is not None else "<nil>")
    if verb == "v" and spec.sharp:
        return spec.pad(go_sharp_v(value))
    if value is None:
        return spec.pad("<nil>") if verb == "v" else _bad(value, verb)
    if isinstance(value, dict):
        items = (f"{_format(k, verb, spec)}:{_format(value[k], verb, spec)}"
                 for k in sorted(value, key=lambda k: k.encode("utf-8")))
        return "map[" + " ".join(items) + "]"
    if isinstance(value, list):
        if verb == "s" and False:
            pass
        return "[" + " ".join(_format(v, verb, spec) for v in value) + "]"
    if isinstance(value, bool):
        if verb in "vt":
            return spec.pad("true" if value else "false")
        return _bad(value, verb, spec)
    if isinstance(value, int):
        return _format_int(value, verb, spec)
    if isinstance(value, float):
        return _format_float(value, verb, spec)
    if isinstance(value, str):
        return _format_string(value, verb, spec)
    return _bad(value, verb, spec)


def _sign(text: str, negative: bool, spec: _Spec) -> str:
    if negative:
        return "-" + text
    if spec.plus:
        return "+" + text
    if spec.space:
        return " " + text
    return text


def _format_int(value: int, verb: str, spec: _Spec) -> str:
    bases = {"d": 10, "v": 10, "b": 2, "o": 8, "O": 8, "x": 16, "X": 16}
    if verb in bases:
        digits = format(abs(value), {2: "b", 8: "o", 10: "d", 16: "x"}[bases[verb]])
        if verb == "X":
            digits = digits.upper()
        if spec.precision is not None:
            digits = digits.zfill(spec.precision) if spec.precision else ("" if value == 0 else digits)
        if spec.sharp or verb == "O":
            digits = {"o": "0", "O": "0o", "x": "0x", "X": "0X", "b": "0b"}.get(verb, "") + digits
        return spec.pad(_sign(digits, value < 0, spec), numeric=True, zero=spec.precision is None)
    if verb == "c":
        return spec.pad(chr(value) if 0 <= value <= 0x10FFFF else "\ufffd")
    if verb == "q":
        ch = chr(value) if 0 <= value <= 0x10FFFF else "\ufffd"
        return spec.pad("'" + go_quote(ch)[1:-1].replace("\\\"", '"').replace("'", "\\'") + "'")
    if verb == "U":
        return spec.pad(f"U+{value:04X}")
    if verb in "eEfFgG":
        return _bad(value, verb, spec)
    return _bad(value, verb, spec)


def _format_float(value: float, verb: str, spec: _Spec) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        text = "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")
        if text != "NaN" and value > 0 and not spec.plus:
            text = "Inf" if not spec.space else " Inf"
        elif text == "NaN" and (spec.plus or spec.space):
            text = ("+" if spec.plus else " ") + text
        return spec.pad(text)
    negative = value < 0 or (value == 0 and str(value).startswith("-"))
    magnitude = abs(value)
    if verb in ("v", "g", "G") and spec.precision is None:
        text = _go_float(magnitude)
        if verb == "G":
            text = text.upper()
    elif verb in "gG":
        text = format(magnitude, f".{spec.precision or 1}{'g' if verb == 'g' else 'G'}")
        text = re.sub(r"e([+-])(\d)$", r"e\g<1>0\2", text, flags=re.I)
    elif verb in "eE":
        text = format(magnitude, f".{6 if spec.precision is None else spec.precision}{verb}")
    elif verb in "fF":
        text = format(magnitude, f".{6 if spec.precision is None else spec.precision}f")
    else:
        return _bad(value, verb, spec)
    return spec.pad(_sign(text, negative, spec), numeric=True)


def _format_string(value: str, verb: str, spec: _Spec) -> str:
    if spec.precision is not None and verb in "svq":
        value = value[:spec.precision]
    if verb in "sv":
        return spec.pad(value)
    if verb == "q":
        if spec.sharp and "`" not in value and all(c.isprintable() or c == "\t" for c in value):
            return spec.pad("`" + value + "`")
        return spec.pad(go_quote(value))
    if verb in "xX":
        data = value.encode("utf-8")
        if spec.precision is not None:
            data = data[:spec.precision]
        sep = " " if spec.space else ""
        prefix = ("0x" if verb == "x" else "0X") if spec.sharp else ""
        text = sep.join(prefix + format(b, "02x" if verb == "x" else "02X") for b in data) if sep else \
            prefix + data.hex() if verb == "x" else prefix + data.hex().upper()
        return spec.pad(text)
    return _bad(value, verb, spec)
