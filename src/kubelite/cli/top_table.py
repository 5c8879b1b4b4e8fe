"""The lines `kubectl top` prints from metrics.k8s.io objects (its metricsutil printer): CPU in
millicores rounded up, memory in whole MiB, a node's share of what it can give in whole percent,
columns aligned by a tab writer whose every cell (the last one too) ends with a tab.
"""
from __future__ import annotations

import math
from fractions import Fraction

from kubelite.manifest.table import TabWriter
from kubelite.quantity import QuantityError, quantity_value

MEASURED = ("cpu", "memory")
NODE_COLUMNS = ("NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)")
POD_COLUMNS = ("NAME", "CPU(cores)", "MEMORY(bytes)")
UNKNOWN = "<unknown>"


def _amount(value) -> Fraction:
    try:
        return quantity_value(value)
    except (QuantityError, ValueError, TypeError):
        return Fraction(0)


def _usage(raw: dict | None) -> dict[str, Fraction]:
    return {k: _amount(v) for k, v in (raw or {}).items()}


def _container_usage(container: dict) -> dict[str, Fraction]:
    return {**{r: Fraction(0) for r in MEASURED}, **_usage(container.get("usage"))}


def _pod_usage(item: dict) -> dict[str, Fraction]:
    total = {r: Fraction(0) for r in MEASURED}
    for container in item.get("containers") or []:
        usage = _usage(container.get("usage"))
        for r in MEASURED:
            total[r] += usage.get(r, Fraction(0))
    return total


def _milli(amount: Fraction) -> int:
    return math.ceil(amount * 1000)


def _cell(resource: str, amount: Fraction) -> str:
    if resource == "cpu":
        return f"{_milli(amount)}m"
    return f"{math.ceil(amount) // (1024 * 1024)}Mi"


def _percent(used: Fraction, available: Fraction) -> str:
    """Go's int64(float64(used milli) / float64(available milli) * 100): float arithmetic (so
    0.29 of a node is 28%), and amd64's conversion of an infinite or NaN share."""
    if _milli(available) == 0:
        return "-9223372036854775808%"
    return f"{int(float(_milli(used)) / float(_milli(available)) * 100)}%"


def _line(name: str, usage: dict[str, Fraction], available: dict[str, Fraction] | None = None) -> str:
    cells = [name]
    for resource in MEASURED:
        amount = usage.get(resource, Fraction(0))
        cells.append(_cell(resource, amount))
        if available is not None and resource in available:
            cells.append(_percent(amount, available[resource]))
    return "".join(c + "\t" for c in cells) + "\n"


def _sort_key(sort_by: str, usage: dict[str, Fraction]):
    # kubectl sorts the biggest first, CPU by whole millicores and memory by whole bytes.
    if sort_by == "cpu":
        return -_milli(usage["cpu"])
    return -math.ceil(usage["memory"])


def node_lines(items: list[dict], available: dict[str, dict], no_headers: bool, sort_by: str) -> str:
    """`top node`: one line per NodeMetrics (with its node's share when the node was found), then
    `<unknown>` lines for nodes that had no metrics."""
    if not items:
        return ""
    writer = TabWriter()
    if sort_by:
        items = sorted(items, key=lambda m: _sort_key(sort_by, _usage(m.get("usage"))))
    else:
        items = sorted(items, key=lambda m: m["metadata"]["name"])
    if not no_headers:
        writer.write("".join(c + "\t" for c in NODE_COLUMNS) + "\n")
    remaining = dict(available)
    for item in items:
        name = item["metadata"]["name"]
        node_available = remaining.pop(name, None)
        writer.write(_line(name, _usage(item.get("usage")),
                           _usage(node_available) if node_available is not None else None))
    for name in sorted(remaining):
        writer.write(name + "\t" + (UNKNOWN + "\t") * 4 + "\n")
    writer.flush()
    return writer.getvalue()


def pod_lines(items: list[dict], containers: bool, with_namespace: bool, no_headers: bool, sort_by: str,
              with_sum: bool) -> str:
    """`top pod`: one line per pod (or per container), kubectl's order, and the --sum lines."""
    if not items:
        return ""
    writer = TabWriter()
    width = len(POD_COLUMNS)
    if not no_headers:
        # kubectl widens the --sum indentation only where it prints these headers.
        prefix = (["NAMESPACE"] if with_namespace else []) + (["POD"] if containers else [])
        width += len(prefix)
        writer.write("".join(c + "\t" for c in (*prefix, *POD_COLUMNS)) + "\n")
    if sort_by:
        items = sorted(items, key=lambda m: _sort_key(sort_by, _pod_usage(m)))
    elif with_namespace:
        items = sorted(items, key=lambda m: (m["metadata"].get("namespace", ""), m["metadata"]["name"]))
    else:
        items = sorted(items, key=lambda m: m["metadata"]["name"])
    for item in items:
        meta = item["metadata"]
        lead = meta.get("namespace", "") + "\t" if with_namespace else ""
        if containers:
            listed = [(c.get("name", ""), _container_usage(c)) for c in item.get("containers") or []]
            if sort_by:
                listed.sort(key=lambda pair: _sort_key(sort_by, pair[1]))
            else:
                listed.sort(key=lambda pair: pair[0])
            for name, usage in listed:
                writer.write(lead + meta["name"] + "\t" + _line(name, usage))
        else:
            writer.write(lead + _line(meta["name"], _pod_usage(item)))
    if with_sum:
        total = {r: Fraction(0) for r in MEASURED}
        for item in items:
            for r, amount in _pod_usage(item).items():
                total[r] += amount
        writer.write("\t" * max(width - 2, 0) + "________\t________\t\n")
        writer.write("\t" * max(width - 3, 0) + _line("", total))
    writer.flush()
    return writer.getvalue()
