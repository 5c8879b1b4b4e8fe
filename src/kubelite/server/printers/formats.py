"""Small value formatters shared by the printers: ages, label selectors, quantities.

They reproduce how kube-apiserver renders these values inside Table cells (the
server always prints with "wide" on; clients pick columns by priority).
"""
from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any, Iterable

UTC = datetime.timezone.utc


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return 0


def dig(obj: Any, *path: str) -> Any:
    """obj[path[0]][path[1]]...; None as soon as a step is missing or not an object."""
    node = obj
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


# ---------------------------------------------------------------------------- time

def parse_time(value: Any) -> datetime.datetime | None:
    """An RFC 3339 timestamp (seconds or micro/nanosecond precision) as aware UTC; None if absent/bad."""
    if not isinstance(value, str) or not value:
        return None
    return _parse_time_text(value)


@functools.lru_cache(maxsize=16384)  # a Table of 1,000 objects reads each creationTimestamp again
def _parse_time_text(value: str) -> datetime.datetime | None:
    text = value.strip()
    if text.endswith("Z") or text.endswith("z"):
        text = text[:-1] + "+00:00"
    if "." in text:
        # Python accepts at most 6 fractional digits; nanosecond precision is cut.
        head, _, rest = text.partition(".")
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        text = f"{head}.{(digits + '000000')[:6]}{rest}"
    try:
        parsed = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.astimezone(UTC)


def to_now(now: datetime.datetime | str | int | float | None) -> datetime.datetime:
    """`now` given as datetime, RFC 3339 text or epoch seconds; the current time when None."""
    if now is None:
        return datetime.datetime.now(UTC)
    if isinstance(now, datetime.datetime):
        return now if now.tzinfo else now.replace(tzinfo=UTC)
    if isinstance(now, (int, float)) and not isinstance(now, bool):
        return datetime.datetime.fromtimestamp(now, UTC)
    parsed = parse_time(now)
    if parsed is None:
        raise ValueError(f"now: not an RFC 3339 timestamp: {now!r}")
    return parsed


def human_duration(seconds: float) -> str:
    """apimachinery's HumanDuration: 5s, 3m2s, 15m, 4h5m, 20h, 3d4h, 40d, 2y40d, 9y.

    Up to one second in the future counts as now (clock skew); further is `<invalid>`.
    """
    whole = int(seconds)  # truncates toward zero, as Go's int(d.Seconds())
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y{rest}d" if rest else f"{years}y"
    return f"{years}y"


def since(timestamp: Any, now: datetime.datetime) -> str:
    """Age of a timestamp; `<unknown>` when it is unset (or unreadable)."""
    moment = parse_time(timestamp)
    if moment is None:
        return "<unknown>"
    return human_duration((now - moment).total_seconds())


def between(start: Any, end: Any) -> str:
    first, last = parse_time(start), parse_time(end)
    if first is None or last is None:
        return "<unknown>"
    return human_duration((last - first).total_seconds())


def rfc3339(timestamp: Any) -> str:
    """A creationTimestamp re-rendered in UTC seconds (Go's zero time when unset)."""
    moment = parse_time(timestamp)
    if moment is None:
        return "0001-01-01T00:00:00Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------- labels

def format_labels(labels: Any) -> str:
    """`k=v,k2=v2` sorted by key, `<none>` when empty."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


class InvalidSelector(ValueError):
    pass


def selector_string(selector: Any) -> str:
    """A metav1.LabelSelector as kube's selector.String(): requirements sorted by key.

    Raises InvalidSelector for what LabelSelectorAsSelector rejects. An absent or empty
    selector renders as "".
    """
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in as_dict(selector.get("matchLabels")).items():
        requirements.append((key, f"{key}={value}"))
    for expression in as_list(selector.get("matchExpressions")):
        expression = as_dict(expression)
        key = as_str(expression.get("key"))
        operator = expression.get("operator")
        values = sorted({str(v) for v in as_list(expression.get("values"))})
        if operator in ("In", "NotIn"):
            if not values:
                raise InvalidSelector(f"{key}: values must be non-empty for {operator}")
            word = "in" if operator == "In" else "notin"
            requirements.append((key, f"{key} {word} ({','.join(values)})"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                raise InvalidSelector(f"{key}: values must be empty for {operator}")
            requirements.append((key, key if operator == "Exists" else f"!{key}"))
        else:
            raise InvalidSelector(f"{operator!r} is not a valid label selector operator")
    requirements.sort(key=lambda item: item[0])
    return ",".join(text for _, text in requirements)


def format_label_selector(selector: Any) -> str:
    """metav1.FormatLabelSelector: `<none>` for empty, `<error>` for invalid."""
    try:
        text = selector_string(selector)
    except InvalidSelector:
        return "<error>"
    return text or "<none>"


# ------------------------------------------------------------------------ misc

def quantity(value: Any) -> str:
    """A resource.Quantity's String(): canonical form; "0" when absent."""
    if value is None:
        return "0"
    try:
        from kubelite.quantity import canonical_quantity
        return canonical_quantity(value)
    except (ImportError, ValueError):
        return str(value)


def container_cells(containers: Any) -> tuple[str, str]:
    """(names, images), each comma-joined in container order."""
    items = [as_dict(c) for c in as_list(containers)]
    return (",".join(as_str(c.get("name")) for c in items),
            ",".join(as_str(c.get("image")) for c in items))


_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"),
                 ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP"))


def access_modes(modes: Any) -> str:
    present = set(m for m in as_list(modes) if isinstance(m, str))
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def more_list(items: Iterable[str], limit: int, *, empty: str | None = None) -> str:
    """The first `limit` items joined by ",", then ` + N more...`; `empty` when there are none."""
    items = list(items)
    text = ",".join(items[:limit])
    if len(items) > limit:
        return f"{text} + {len(items) - limit} more..."
    if not text and empty is not None:
        return empty
    return text


def bool_word(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return "<unset>"


def sorted_unique(values: Iterable[str]) -> list[str]:
    return sorted(set(values))


def lower_kind_name(kind: str, name: str) -> str:
    return f"{kind.lower()}/{name}" if name else kind.lower()


def mapping_len(value: Any) -> int:
    # dict first: the abstract Mapping check is slow, and decoded JSON objects are dicts.
    return len(value) if isinstance(value, dict) or isinstance(value, Mapping) else 0
