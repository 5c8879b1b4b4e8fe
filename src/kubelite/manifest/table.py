"""kubectl's human-readable printer for server-side Tables (``kubectl get``).

A server answers ``kubectl get`` with ``meta.k8s.io/v1`` Table objects
(``columnDefinitions`` + ``rows``).  :func:`render` turns a list of them into
exactly the text kubectl prints: upper-cased headers, priority>0 columns only
with ``-o wide``, NAMESPACE / label columns, ``--sort-by`` and the column
alignment of kubectl's tab writer (min width 6, padding 3, spaces).
"""

from __future__ import annotations

from functools import cmp_to_key

from kubelite.manifest._govalues import go_quote, go_sprint

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

__all__ = [
    "TableError",
    "TabWriter",
    "human_duration",
    "no_resources_message",
    "format_labels",
    "relaxed_jsonpath",
    "render",
    "render_groups",
]


class TableError(ValueError):
    """A table that cannot be printed as asked; the message is kubectl's."""


# --------------------------------------------------------------------------
# Durations
# --------------------------------------------------------------------------

_NS = 1_000_000_000


def human_duration(seconds: float) -> str:
    """kubectl's AGE text for a duration (apimachinery duration.HumanDuration)."""
    nanos = int(round(seconds * _NS)) if isinstance(seconds, float) else int(seconds) * _NS
    whole_seconds = int(nanos / _NS) if nanos < 0 else nanos // _NS
    if whole_seconds < -1:
        return "<invalid>"
    if whole_seconds < 0:
        return "0s"
    if whole_seconds < 120:
        return f"{whole_seconds}s"
    minutes = nanos // (60 * _NS)
    if minutes < 10:
        rest = whole_seconds % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = nanos // (3600 * _NS)
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def no_resources_message(namespace: str | None = None) -> str:
    """The stderr line kubectl prints when ``get`` found nothing.

    Pass the namespace when every requested resource is namespaced and
    ``-A`` was not given; otherwise kubectl prints the plain form.
    """
    if namespace:
        return f"No resources found in {namespace} namespace.\n"
    return "No resources found\n"


# --------------------------------------------------------------------------
# Tab writer (github.com/liggitt/tabwriter with kubectl's settings)
# --------------------------------------------------------------------------


class TabWriter:
    """Aligns tab-separated cells into columns as kubectl's tab writer does.

    Cells end at a tab; the last cell of a line is not part of any column.
    A column's width is the widest cell of a run of consecutive lines that
    have that column, plus padding, at least ``min_width``.  Widths are
    remembered across flushes until :meth:`forget_widths`.
    """

    def __init__(self, min_width: int = 6, padding: int = 3):
        self.min_width = min_width
        self.padding = padding
        self._max_widths: list[int] = []
        self._widths: list[int] = []
        self._out: list[str] = []
        self._reset()

    def _reset(self) -> None:
        self._lines: list[list[str]] = [[]]
        self._cell: list[str] = []

    def forget_widths(self) -> None:
        self._max_widths = []

    def write(self, text: str) -> None:
        for ch in text:
            if ch in "\t\v":
                self._terminate_cell()
            elif ch in "\n\f":
                cells = self._terminate_cell()
                self._lines.append([])
                if ch == "\f" or cells == 1:
                    # A one-cell line cannot affect alignment of what follows.
                    self._flush_lines()
            else:
                self._cell.append(ch)

    def flush(self) -> None:
        if self._cell:
            self._terminate_cell()
        self._flush_lines()

    def getvalue(self) -> str:
        return "".join(self._out)

    def _terminate_cell(self) -> int:
        line = self._lines[-1]
        line.append("".join(self._cell))
        self._cell = []
        return len(line)

    def _flush_lines(self) -> None:
        self._format(0, len(self._lines))
        self._reset()

    def _format(self, line0: int, line1: int) -> None:
        column = len(self._widths)
        this = line0
        while this < line1:
            if column >= len(self._lines[this]) - 1:
                this += 1
                continue
            self._write_lines(line0, this)
            line0 = this
            width = self.min_width
            while this < line1:
                line = self._lines[this]
                if column >= len(line) - 1:
                    break
                width = max(width, len(line[column]) + self.padding)
                this += 1
            width = self._remembered(width)
            self._widths.append(width)
            self._format(line0, this)
            self._widths.pop()
            line0 = this
            this += 1
        self._write_lines(line0, line1)

    def _remembered(self, width: int) -> int:
        depth = len(self._widths)
        if len(self._max_widths) < depth:
            self._max_widths.extend(self._widths[len(self._max_widths) :])
        if len(self._max_widths) == depth:
            self._max_widths.append(width)
        elif self._max_widths[depth] > width:
            width = self._max_widths[depth]
        else:
            self._max_widths[depth] = width
        return width

    def _write_lines(self, line0: int, line1: int) -> None:
        out = self._out
        for i in range(line0, line1):
            for j, cell in enumerate(self._lines[i]):
                out.append(cell)
                if j < len(self._widths):
                    out.append(" " * (self._widths[j] - len(cell)))
            if i + 1 < len(self._lines):
                out.append("\n")


# --------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------


def _escape_terminal(text: str) -> str:
    return text.replace("\x1b", "^[").replace("\r", "\\r")


def _cell_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, str):
        cut = min((i for i in (cell.find(c) for c in "\f\n\r") if i >= 0), default=-1)
        if cut >= 0:
            return _escape_terminal(cell[:cut]) + "..."
        return _escape_terminal(cell)
    return _escape_terminal(go_sprint(cell))


def format_labels(labels: dict | None) -> str:
    """``a=1,b=2`` sorted by key, ``<none>`` when there are none."""
    if not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels, key=lambda k: k.encode("utf-8")))


def _label_header(label: str) -> str:
    return label.split("/")[-1].upper()


def _metadata(row: dict) -> dict | None:
    obj = row.get("object")
    if not isinstance(obj, dict):
        return None
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


# --------------------------------------------------------------------------
# Sorting (--sort-by)
# --------------------------------------------------------------------------


def relaxed_jsonpath(expression: str) -> str:
    """kubectl's leniency for --sort-by / custom columns: ``a.b`` -> ``{.a.b}``."""
    import re

    if not expression:
        return expression
    match = re.match(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$", expression, re.S)
    if match is None:
        raise TableError(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
        )
    return "{." + (match.group(1) or match.group(2)) + "}"


def _sort_value_less(a: Any, b: Any, field: str) -> bool:
    if a is None and b is None:
        return False
    if a is None:
        return True
    if b is None:
        return False
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, (dict, list)):
        raise TableError(f"Field {field} in table is an unsortable type")
    if isinstance(a, str) and isinstance(b, str):
        qa, qb = _quantity(a), _quantity(b)
        if qa is not None and qb is not None:
            return qa < qb
        return a.encode("utf-8") < b.encode("utf-8")
    if type(a) is type(b) and isinstance(a, (int, float)):
        return a < b
    raise TableError(f"Field {field} in table is an unsortable type")


_SUFFIXES = {
    "": 1, "n": 10**-9, "u": 10**-6, "m": 10**-3, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
    "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}


def _quantity(text: str):
    """A resource.Quantity's value, or None when ``text`` is not a quantity."""
    import re
    from fractions import Fraction

    match = re.fullmatch(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)", text)
    if match is None:
        return None
    number = Fraction(match.group(1))
    if match.group(2):
        return number * Fraction(10) ** int(match.group(2)[1:])
    return number * Fraction(_SUFFIXES[match.group(3) or ""])


def _sort_rows(rows: list, field: str) -> list:
    from kubelite.manifest import jsonpath  # only when sorting: the parser is a third of this module's import

    try:
        template = jsonpath.parse(field)
    except jsonpath.JSONPathError as err:
        raise TableError(f"sorting error: {err.message.split(', ', 1)[-1]}") from None
    keys = []
    found = False
    for row in rows:
        obj = row.get("object") if isinstance(row, dict) else None
        try:
            results = jsonpath.find_results(template, obj)
        except jsonpath.JSONPathError as err:
            raise TableError(f"Failed to get values for {field} ({err.message})") from None
        key = results[0] if results and results[0] else None
        if key is not None:
            found = True
        keys.append(key)
    if rows and not found:
        raise TableError(f"couldn't find any field with path {go_quote(field)} in the list of objects")

    def less(i: int, j: int) -> bool:
        if keys[i] is None:
            return True
        if keys[j] is None:
            return False
        return _sort_value_less(keys[i][0], keys[j][0], field)

    order = _go_sort(len(rows), less)
    return [rows[i] for i in order]


def _go_sort(count: int, less) -> list[int]:
    """Order indexes as Go's sort.Sort does for small inputs (insertion sort).

    For more than 12 elements Go switches to pattern-defeating quicksort,
    which is not stable; a stable sort is used instead (equal keys keep
    the server's order).
    """
    order = list(range(count))
    if count <= 12:
        for i in range(1, count):
            j = i
            while j > 0 and less(order[j], order[j - 1]):
                order[j], order[j - 1] = order[j - 1], order[j]
                j -= 1
        return order
    return sorted(order, key=cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0)))


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


class _Options:
    def __init__(self, wide, no_headers, show_labels, label_columns, with_namespace, kind):
        self.wide = wide
        self.no_headers = no_headers
        self.show_labels = show_labels
        self.label_columns = list(label_columns)
        self.with_namespace = with_namespace
        self.kind = kind


def _decorate(columns: list, rows: list, opts: _Options) -> tuple[list, list]:
    """Add NAMESPACE, -L and LABELS columns and the kind prefix, as kubectl does."""
    width = len(columns) + len(opts.label_columns) + int(opts.with_namespace) + int(opts.show_labels)
    name_column = -1
    if opts.kind:
        name_column = next(
            (i for i, c in enumerate(columns) if c.get("format") == "name" and c.get("type") == "string"), -1
        )
    if width != len(columns):
        extra_front = [{"name": "Namespace", "type": "string"}] if opts.with_namespace else []
        extra_back = [{"name": _label_header(label), "type": "string"} for label in opts.label_columns]
        if opts.show_labels:
            extra_back.append({"name": "Labels", "type": "string"})
        columns = extra_front + list(columns) + extra_back
    include_labels = bool(opts.label_columns) or opts.show_labels
    if not (include_labels or opts.with_namespace or name_column != -1):
        return columns, rows
    decorated = []
    for row in rows:
        cells = list(row.get("cells") or [])
        if name_column != -1 and name_column < len(cells):
            cells[name_column] = f"{opts.kind}/{_go_s(cells[name_column])}"
        metadata = _metadata(row)
        if metadata is None:
            if opts.with_namespace:
                cells = [None] + cells
            # kubectl's padding loop re-reads the growing length: it adds half the gap.
            j = 0
            while j < width - len(cells):
                cells.append(None)
                j += 1
        else:
            if opts.with_namespace:
                cells = [metadata.get("namespace") or ""] + cells
            if include_labels:
                labels = metadata.get("labels") or {}
                cells.extend(labels.get(key, "") for key in opts.label_columns)
                if opts.show_labels:
                    cells.append(format_labels(labels))
        decorated.append({**row, "cells": cells})
    return columns, decorated


def _go_s(value: Any) -> str:
    return value if isinstance(value, str) else go_sprint(value)


def _print_table(columns: list, rows: list, opts: _Options, no_headers: bool, out: TabWriter) -> None:
    visible = [opts.wide or not c.get("priority") for c in columns]
    if not no_headers:
        if not rows:
            return
        out.write("\t".join(str(c.get("name", "")).upper() for c, show in zip(columns, visible) if show) + "\n")
    for row in rows:
        texts = []
        for i, cell in enumerate(row.get("cells") or []):
            if i >= len(columns):
                break
            if visible[i]:
                texts.append(_cell_text(cell))
        out.write("\t".join(texts) + "\n")


class _TablePrinter:
    """One printer per resource type: prints headers once per column set."""

    def __init__(self, opts: _Options):
        self.opts = opts
        self.last_columns: list | None = None
        self.printed_headers = False

    def print(self, table: dict, out: TabWriter, event: str = "") -> None:
        if not isinstance(table, dict):
            raise TableError(f"expected a Table object, got {type(table).__name__}")
        columns = table.get("columnDefinitions") or []
        rows = table.get("rows") or []
        if not isinstance(columns, list) or not isinstance(rows, list):
            raise TableError("Table columnDefinitions and rows must be lists")
        for index, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get("cells", []), list):
                raise TableError(f"Table rows[{index}] must be an object with a cells list")
        for index, column in enumerate(columns):
            if not isinstance(column, dict):
                raise TableError(f"Table columnDefinitions[{index}] must be an object")
        no_headers = self.opts.no_headers
        if self.printed_headers and (not columns or columns == self.last_columns):
            no_headers = True
        if not columns:
            columns = self.last_columns or []
        elif columns != self.last_columns:
            self.last_columns = columns
            self.printed_headers = False
        if rows:
            self.printed_headers = True
        columns, rows = _decorate(columns, rows, self.opts)
        if event:
            # --output-watch-events: the event type in front, padded as kubectl pads it
            cell = _EVENT_CELLS.get(event, event)
            columns = [{"name": "Event", "type": "string"}] + list(columns)
            rows = [{**row, "cells": [cell] + list(row.get("cells") or [])} for row in rows]
        _print_table(columns, rows, self.opts, no_headers, out)


_EVENT_CELLS = {"ADDED": "ADDED   ", "MODIFIED": "MODIFIED", "DELETED": "DELETED ", "ERROR": "ERROR   "}


class TableStream:
    """Tables printed one after another as they arrive (``kubectl get -w``): one printer and one
    tab writer for the whole stream, so the header prints once and column widths are
    remembered; `print` returns the text each table adds."""

    def __init__(self, wide: bool = False, no_headers: bool = False, show_labels: bool = False,
                 label_columns: Sequence[str] = (), all_namespaces: bool = False, kind: str | None = None):
        self._printer = _TablePrinter(_Options(wide, no_headers, show_labels, label_columns, all_namespaces, kind))
        self._writer = TabWriter()

    def print(self, table: dict, event: str = "") -> str:
        self._printer.print(table, self._writer, event)
        self._writer.flush()
        text = self._writer.getvalue()
        self._writer._out.clear()
        return text


def render_groups(
    groups: Iterable[tuple[str | None, Sequence[dict], bool]],
    wide: bool = False,
    no_headers: bool = False,
    show_labels: bool = False,
    label_columns: Sequence[str] = (),
    all_namespaces: bool = False,
    sort_by: str | None = None,
) -> str:
    """Print several resource types, one after another, like ``kubectl get a,b``.

    Each group is ``(kind, tables, namespaced)``: ``kind`` is the lower-case
    ``kind.group`` prefix shown before names (``deployment.apps``) or None,
    ``namespaced`` says whether the NAMESPACE column applies with ``-A``.
    Groups are separated by a blank line once something has been printed.
    """
    field = _sort_field(sort_by)
    parts: list[str] = []
    for kind, tables, namespaced in groups:
        # Each resource type gets a fresh printer and fresh column widths.
        writer = TabWriter()
        opts = _Options(wide, no_headers, show_labels, label_columns, all_namespaces and namespaced, kind)
        printer = _TablePrinter(opts)
        for table in tables:
            if field is not None:
                table = {**table, "rows": _sort_rows(list(table.get("rows") or []), field)}
            printer.print(table, writer)
        writer.flush()
        text = writer.getvalue()
        if text and parts and not no_headers:
            parts.append("\n")
        if text:
            parts.append(text)
    return "".join(parts)


def _sort_field(sort_by: str | None) -> str | None:
    if not sort_by:
        return None
    try:
        return relaxed_jsonpath(sort_by)
    except TableError:
        return sort_by


def render(
    tables: Sequence[dict],
    wide: bool = False,
    no_headers: bool = False,
    show_labels: bool = False,
    label_columns: Sequence[str] = (),
    all_namespaces: bool = False,
    sort_by: str | None = None,
    kind: str | None = None,
) -> str:
    """Print the Tables of one resource type as ``kubectl get`` does.

    ``tables`` are consecutive chunks of one list (headers print once).
    ``kind`` (e.g. ``deployment.apps``) prefixes names as with ``--show-kind``.
    Returns "" when there is nothing to print; the caller then writes
    :func:`no_resources_message` to stderr.
    """
    return render_groups(
        [(kind, tables, True)],
        wide=wide,
        no_headers=no_headers,
        show_labels=show_labels,
        label_columns=label_columns,
        all_namespaces=all_namespaces,
        sort_by=sort_by,
    )
