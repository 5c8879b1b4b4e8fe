"""Values as a go-template sees them: kubectl's JSON round trip, Go's zero Value, truth."""
from __future__ import annotations

from typing import Any

from kubelite.manifest import _gofmt


class _Invalid:
    """Go's zero reflect.Value: a missing key, printed as <no value>."""

    def __repr__(self) -> str:
        return "<no value>"


INVALID = _Invalid()


class _Uint8(int):
    """A byte, as `index` of a string yields."""


class _Int64(int):
    """A JSON integer as apimachinery's json.Unmarshal decodes it (int64, not Go's plain int)."""


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _from_json(value: Any) -> Any:
    """The object as kubectl's printer sees it after a JSON round trip through apimachinery's
    json.Unmarshal: numbers written as integers within int64 are int64, the others float64."""
    if isinstance(value, dict):
        return {str(k): _from_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_from_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return _Int64(value) if _INT64[0] <= value <= _INT64[1] else float(value)
    if isinstance(value, float):
        # encoding/json writes integral floats below 1e21 without a fraction: they come back as integers
        if value.is_integer() and abs(value) < 1e21 and _INT64[0] <= value <= _INT64[1]:
            return _Int64(int(value))
        return value
    return str(value)


def type_name(value: Any) -> str:
    return _gofmt.type_name(value)


def _truth(value: Any) -> bool:
    if value is INVALID or value is None:
        return False
    if isinstance(value, (dict, list, str)):
        return len(value) > 0
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return True
