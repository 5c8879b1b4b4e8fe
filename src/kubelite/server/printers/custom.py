"""Tables for custom resources (their CRD's additionalPrinterColumns) and the default
Name / Created At table of built-in kinds that have no printer."""
from __future__ import annotations

import datetime
from collections.abc import Mapping

from kubelite.server.printers.columns import AGE_DATE, CREATED_AT, NAME, Column
from kubelite.server.printers.formats import as_str, dig, human_duration, parse_time, rfc3339
from kubelite.server.printers.registry import Printer, Row

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any, Sequence

_DEFAULT_CR_PATH = ".metadata.creationTimestamp"


def default_printer() -> Printer:
    def row(obj: dict, now: datetime.datetime) -> Row:
        return Row([as_str(dig(obj, "metadata", "name")), rfc3339(dig(obj, "metadata", "creationTimestamp"))])
    return Printer((NAME, CREATED_AT), row)


def custom_resource_printer(printer_columns: Sequence[Mapping[str, Any]] | None) -> Printer:
    """The printer of a custom resource version; no columns means the CRD default Age column."""
    specs = [dict(c) for c in printer_columns or () if isinstance(c, Mapping)]
    if not specs:
        columns = [NAME, AGE_DATE]
        paths = [_DEFAULT_CR_PATH]
    else:
        columns = [NAME]
        paths = []
        for spec in specs:
            path = as_str(spec.get("jsonPath"))
            description = as_str(spec.get("description")) or (
                f"Custom resource definition column (in JSONPath format): {path}")
            priority = spec.get("priority")
            columns.append(Column(as_str(spec.get("name")), as_str(spec.get("type")), description,
                                  priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
                                  as_str(spec.get("format"))))
            paths.append(path)
    templates = [_parse(path) for path in paths]
    types = [column.type for column in columns[1:]]

    def row(obj: dict, now: datetime.datetime) -> Row:
        cells: list = [as_str(dig(obj, "metadata", "name"))]
        for template, kind in zip(templates, types):
            cells.append(_cell(template, kind, obj, now))
        return Row(cells)

    return Printer(tuple(columns), row)


def _parse(path: str):
    from kubelite.manifest import jsonpath

    try:
        return jsonpath.parse("{" + path + "}")
    except jsonpath.JSONPathError:
        return None  # the CRD validation rejects such paths; print an empty cell if one slips through


def _cell(template, kind: str, obj: dict, now: datetime.datetime) -> Any:
    from kubelite.manifest import jsonpath

    if template is None:
        return None
    try:
        results = jsonpath.find_results(template, obj, allow_missing_keys=True)
    except jsonpath.JSONPathError:
        return None
    if not results or not results[0]:
        return None
    value = results[0][0]
    if kind == "string":
        return jsonpath.format_results([[value]])
    return _typed(kind, value, now)


def _typed(kind: str, value: Any, now: datetime.datetime) -> Any:
    if value is None or isinstance(value, bool) and kind in ("integer", "number"):
        return None
    if kind == "integer":
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return int(value)
    elif kind == "number":
        if isinstance(value, (int, float)):
            return value
    elif kind == "boolean":
        if isinstance(value, bool):
            return value
    elif kind == "date":
        if isinstance(value, str):
            if value in ("", "null"):
                return "<unknown>"
            moment = parse_time(value)
            if moment is None:
                return "<invalid>"
            return human_duration((now - moment).total_seconds())
    return None
