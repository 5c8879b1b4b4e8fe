"""kubectl's JSONPath dialect (the template language of ``-o jsonpath=...``).

Objects are plain JSON values: dict, list, str, int, float, bool, None.  The
parser and evaluator follow the behaviour of kubectl 1.32 closely, including
its quirks (``{range}`` bookkeeping, how filters compare values, which errors
are raised), because users script against kubectl's exact output.

Public API::

    render(template, obj, allow_missing_keys=True) -> str
    find_results(template, obj, allow_missing_keys=True) -> list[list[value]]
    parse(template) -> Template

Errors raise :class:`JSONPathError`; ``str(err)`` is kubectl's message and
``err.stderr()`` is what kubectl writes to stderr for it.

The parts live in private sibling modules: ``_jp_parse`` (with ``_jp_nodes``),
``_jp_eval`` and ``_govalues`` (Go's printing of values, which the go-template
printer shares); this module keeps the entry points and re-exports the Go
formatting helpers other modules import from here.
"""

from __future__ import annotations

from kubelite.manifest._govalues import _go_float, _go_int, go_json, go_quote, go_sharp_v, go_sprint
from kubelite.manifest._jp_errors import JSONPathError, _ExecError
from kubelite.manifest._jp_eval import _Evaluator
from kubelite.manifest._jp_parse import Template, _unquote, parse
from kubelite.manifest._jp_values import _INVALID

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

# read from here by _gofmt and older callers
_REEXPORTED = (_go_float, _unquote)

__all__ = [
    "JSONPathError",
    "Template",
    "parse",
    "render",
    "find_results",
    "format_results",
    "go_sprint",
    "go_sharp_v",
    "go_quote",
    "go_json",
]


def _text_of(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return go_json(value)
    if value is None:
        return "null"
    if value is _INVALID:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def format_results(results: list[list]) -> str:
    """Join evaluation results the way kubectl prints them."""
    return "".join(" ".join(_text_of(value) for value in group) for group in results)


def _execute(template: Template, obj: Any, allow_missing_keys: bool) -> list[list]:
    evaluator = _Evaluator(template.root, allow_missing_keys)
    try:
        return evaluator.find_results(obj)
    except RecursionError:
        raise _ExecError("template nested too deeply") from None


def find_results(template: str | Template, obj: Any, allow_missing_keys: bool = True) -> list[list]:
    """Evaluate ``template`` against ``obj``; each action yields one result list."""
    parsed = template if isinstance(template, Template) else parse(template)
    try:
        return _execute(parsed, obj, allow_missing_keys)
    except _ExecError as err:
        raise JSONPathError(str(err)) from None


def render(template: str | Template, obj: Any, allow_missing_keys: bool = True) -> str:
    """Print ``obj`` through ``template`` exactly as ``kubectl -o jsonpath=`` does."""
    if template == "":
        raise JSONPathError("template format specified but no template given")
    parsed = template if isinstance(template, Template) else parse(template)
    try:
        return format_results(_execute(parsed, obj, allow_missing_keys))
    except _ExecError as err:
        raise JSONPathError(_execution_message(parsed.source, obj, str(err))) from None


def _execution_message(source: str, obj: Any, reason: str) -> str:
    detail = (
        f"Error executing template: {reason}. Printing more information for debugging the template:\n"
        f"\ttemplate was:\n\t\t{source}\n"
        f"\tobject given to jsonpath engine was:\n\t\t{go_sharp_v(obj)}\n\n"
    )
    return f"error executing jsonpath {go_quote(source)}: {detail}\n"


def read_template_file(path: str) -> str:
    """The template of ``-o jsonpath-file=PATH`` (used verbatim, as kubectl does)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise JSONPathError(f"error reading --template {path}, open {path}: {reason}") from None
    except UnicodeDecodeError as err:
        raise JSONPathError(f"error reading --template {path}, {err}") from None
