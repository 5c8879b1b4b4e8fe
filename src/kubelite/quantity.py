"""Resource quantities (``500m``, ``1.5Gi``, ``1e3``): parsing and the
canonical form kube-apiserver stores and returns (``0.5`` -> ``500m``,
``1024Mi`` -> ``1Gi``, ``1.5Gi`` -> ``1536Mi``)."""

from __future__ import annotations

import math
import re

TYPE_CHECKING = False  # Fraction in annotations only, at import
if TYPE_CHECKING:
    from fractions import Fraction

__all__ = ["QuantityError", "parse_quantity", "canonical_quantity", "QUANTITY_PATTERN"]

QUANTITY_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY = re.compile(r"([+-]?)([0-9]*\.?[0-9]*)(.*)\Z")

_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIX = {exp: suffix for suffix, exp in _DECIMAL.items()}
_BINARY_SUFFIX = {power: suffix for suffix, power in _BINARY.items()}


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


def parse_quantity(text: str | int | float) -> tuple[Fraction, str]:
    """(exact value, format) where format is DecimalSI, BinarySI or DecimalExponent."""
    if isinstance(text, bool):
        raise QuantityError(f"quantities must match the regular expression '{QUANTITY_PATTERN}'")
    if isinstance(text, (int, float)):
        text = repr(text) if isinstance(text, float) else str(text)
    match = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if not match or not match.group(2) or match.group(2) == ".":
        raise QuantityError(f"quantities must match the regular expression '{QUANTITY_PATTERN}'")
    sign, number, suffix = match.groups()
    # fractions (with decimal and numbers) when a quantity is read: every command and every wake of
    # the controllers imports this module, few of them read a quantity.
    from fractions import Fraction

    value = Fraction(number)
    if sign == "-":
        value = -value
    if suffix in _DECIMAL:
        return value * Fraction(10) ** _DECIMAL[suffix], "DecimalSI"
    if suffix in _BINARY:
        return value * 1024 ** _BINARY[suffix], "BinarySI"
    exp = re.fullmatch(r"[eE]([+-]?[0-9]+)", suffix)
    if exp:
        return value * Fraction(10) ** int(exp.group(1)), "DecimalExponent"
    raise QuantityError("unable to parse quantity's suffix")


def _round_up_nano(value: Fraction) -> Fraction:
    from fractions import Fraction

    scaled = value * 10**9
    return Fraction(math.ceil(scaled), 10**9)


def _decimal(value: Fraction, exponent_style: bool) -> str:
    value = _round_up_nano(value)
    if value == 0:
        return "0"
    exp = -9
    mantissa = value * 10**9
    # Move to the largest power of 1000 that keeps the mantissa integral.
    while exp < 18 and mantissa % 1000 == 0:
        mantissa //= 1000
        exp += 3
    mantissa = int(mantissa)
    if exponent_style:
        return f"{mantissa}e{exp}" if exp else str(mantissa)
    return f"{mantissa}{_DECIMAL_SUFFIX[exp]}"


_MAX_INT64 = 2**63 - 1


def _kept_as_written(text: str, value: Fraction, fmt: str) -> bool:
    """Whether Go keeps the client's spelling (its fast path for whole numbers
    already in canonical shape, e.g. ``007``, ``+1``, ``1E6``, ``01Ki``)."""
    if value == 0:
        return False
    match = _QUANTITY.match(text.strip())
    if not match:
        return False
    _, number, suffix = match.groups()
    whole, _, fraction = number.partition(".")
    digits = whole.lstrip("0")
    shifted = digits + fraction
    if not shifted or int(shifted) > _MAX_INT64:
        return False
    if fmt == "BinarySI":
        if fraction:
            return False
        exponent = 10 * _BINARY[suffix]
        if 15 - len(whole) - int(exponent * 3 / 10) - 1 < 0:
            return False
        if int(shifted) << exponent > _MAX_INT64:
            return False
        return int(shifted) & 7 != 0
    if 18 - (len(whole) + len(fraction)) < 0:
        return False
    exponent = _DECIMAL.get(suffix)
    if exponent is None:
        exponent = int(suffix[1:])
    scale = exponent - len(fraction)
    if scale < -9:
        return False
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def canonical_quantity(text: str | int | float) -> str:
    """The string kube-apiserver serialises for a quantity.

    Usually the canonical form (``0.5`` -> ``500m``, ``2048Ki`` -> ``2Mi``);
    whole numbers already in canonical shape keep the client's spelling.
    """
    value, fmt = parse_quantity(text)
    if isinstance(text, str) and _kept_as_written(text, value, fmt):
        return text.strip()
    if fmt == "BinarySI" and abs(value) >= 1024 and value.denominator == 1:
        number = int(value)
        power = 0
        while power < 6 and number % 1024 == 0 and number != 0:
            number //= 1024
            power += 1
        return f"{number}{_BINARY_SUFFIX.get(power, '')}"
    return _decimal(value, fmt == "DecimalExponent")


def quantity_value(text: str | int | float) -> Fraction:
    """The exact numeric value of a quantity."""
    return parse_quantity(text)[0]
