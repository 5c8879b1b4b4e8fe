"""The ``-o custom-columns=HEADER:PATH,...`` and ``custom-columns-file`` printers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from kubelite.manifest import jsonpath
from kubelite.manifest.table import TabWriter, TableError, relaxed_jsonpath

__all__ = ["ColumnsError", "Column", "parse_spec", "parse_file", "render", "render_columns"]


class ColumnsError(ValueError):
    """A bad column specification or an evaluation failure; kubectl's message."""


@dataclass(frozen=True)
class Column:
    header: str
    field_spec: str


def _relaxed(path: str) -> str:
    try:
        return relaxed_jsonpath(path)
    except TableError as err:
        raise ColumnsError(str(err)) from None


def parse_spec(spec: str) -> list[Column]:
    """Parse ``NAME:.metadata.name,IMAGE:.spec.containers[*].image``."""
    if not spec:
        raise ColumnsError("custom-columns format specified but no custom columns given")
    columns = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep:
            raise ColumnsError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        columns.append(Column(header, _relaxed(path)))
    return columns


def parse_file(text: str) -> list[Column]:
    """Parse a custom-columns file: a header line, then a line of paths."""
    lines = text.splitlines()
    if not lines:
        raise ColumnsError(
            "invalid template, missing header line. Expected format is one line of space separated headers, "
            "one line of space separated column specs."
        )
    if len(lines) < 2:
        raise ColumnsError(
            "invalid template, missing spec line. Expected format is one line of space separated headers, "
            "one line of space separated column specs."
        )
    headers = re.split(r"[ \t\n\v\f\r\x85\xa0]+", lines[0].strip(" \t\n\v\f\r\x85\xa0"))
    specs = re.split(r"[ \t\n\v\f\r\x85\xa0]+", lines[1].strip(" \t\n\v\f\r\x85\xa0"))
    headers = [h for h in headers if h]
    specs = [s for s in specs if s]
    if len(headers) != len(specs):
        raise ColumnsError(
            f"number of headers ({len(headers)}) and field specifications ({len(specs)}) don't match"
        )
    return [Column(h, _relaxed(s)) for h, s in zip(headers, specs)]


def _escape_terminal(text: str) -> str:
    return text.replace("\x1b", "^[").replace("\r", "\\r")


def _cell(template: jsonpath.Template, obj: Any) -> str:
    try:
        results = jsonpath.find_results(template, obj, allow_missing_keys=True)
    except jsonpath.JSONPathError as err:
        raise ColumnsError(err.message) from None
    values = [value for group in results for value in group]
    if not results or not results[0]:
        values = ["<none>"] + values
    return ",".join(_escape_terminal(jsonpath.go_sprint(v)) for v in values)


def _flatten(objects: Iterable[Any]) -> Iterable[Any]:
    for obj in objects:
        if isinstance(obj, dict) and isinstance(obj.get("items"), list):
            yield from _flatten(obj["items"])
        else:
            yield obj


def render_columns(columns: Sequence[Column], objects: Iterable[Any], no_headers: bool = False) -> str:
    """Print ``objects`` (objects or Lists) under ``columns``."""
    templates = []
    for column in columns:
        try:
            templates.append(jsonpath.parse(column.field_spec))
        except jsonpath.JSONPathError as err:
            raise ColumnsError(err.reason) from None
    objects = list(_flatten(objects))
    if not objects:
        return ""
    writer = TabWriter()
    if not no_headers:
        writer.write("\t".join(c.header for c in columns) + "\n")
    for obj in objects:
        writer.write("\t".join(_cell(t, obj) for t in templates) + "\n")
    writer.flush()
    return writer.getvalue()


def render(spec: str, objects: Any, no_headers: bool = False) -> str:
    """``kubectl get -o custom-columns=SPEC`` for an object, a List, or objects."""
    if isinstance(objects, dict):
        objects = [objects]
    return render_columns(parse_spec(spec), objects, no_headers=no_headers)
