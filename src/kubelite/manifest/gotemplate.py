"""Go's text/template, as kubectl's ``-o go-template`` runs it over an object.

kubectl marshals the object to JSON and decodes it into ``map[string]interface{}``, so the
template sees maps, lists, strings, bools, nil and float64 numbers only; this module does the
same (every JSON integer becomes a float) and then follows text/template (Go 1.23): the
lexer with trim markers and comments, the parser with its error texts, and execution with
``missingkey=default`` (prints ``<no value>``) or ``missingkey=error``. The functions are Go's
builtins plus kubectl's ``exists`` and ``base64decode``.

Public API::

    parse(text) -> Template                      # GoTemplateError on bad syntax
    execute(template, obj, allow_missing_keys)   # -> str; GoTemplateExecError keeps the partial output
    render(text, obj, allow_missing_keys)        # kubectl's printer: text, or KubectlTemplateError

The pieces live in private sibling modules: ``_gotpl_errors`` (exceptions), ``_gotpl_values``
(the JSON round trip and Go's zero Value), ``_gotpl_lex``, ``_gotpl_nodes``, ``_gotpl_parse``,
``_gotpl_exec`` and ``_gotpl_funcs`` (the builtin functions).
"""
from __future__ import annotations

from typing import Any

from kubelite.manifest._gotpl_errors import NAME, GoTemplateError, GoTemplateExecError, KubectlTemplateError
from kubelite.manifest._gotpl_exec import _Fail, _State
from kubelite.manifest._gotpl_parse import Template, parse
from kubelite.manifest._gotpl_values import INVALID, _from_json, _Int64, _Uint8, type_name
from kubelite.manifest._govalues import go_json, go_quote, go_sprint

__all__ = ["GoTemplateError", "GoTemplateExecError", "KubectlTemplateError", "Template", "parse", "execute",
           "render"]
# _gofmt reads these value types through this module
_REEXPORTED = (INVALID, _Int64, _Uint8, type_name)


# -- entry points --------------------------------------------------------------------------------------

def execute(template: Template, obj: Any, allow_missing_keys: bool = True) -> str:
    """Run the template on ``obj`` (already JSON-decoded as Go does; see render)."""
    state = _State(template, allow_missing_keys)
    state.vars.append(["$", obj, False])
    try:
        state.walk((obj, False), template.root)
    except _Fail as err:
        raise GoTemplateExecError(str(err), "".join(state.out)) from None
    except RecursionError:
        raise GoTemplateExecError(f"template: {NAME}: template nested too deeply", "".join(state.out)) from None
    return "".join(state.out)


def render(text: str, obj: Any, allow_missing_keys: bool = True) -> str:
    """kubectl's go-template printer for one object (or List)."""
    try:
        template = parse(text)
    except GoTemplateError as err:
        raise KubectlTemplateError(f"error parsing template {text}, {err}") from None
    data = _from_json(obj)
    try:
        return execute(template, data, allow_missing_keys)
    except GoTemplateExecError as err:
        debug = (f"Error executing template: {err}. Printing more information for debugging the template:\n"
                 f"\ttemplate was:\n\t\t{text}\n"
                 f"\traw data was:\n\t\t{go_json(obj)}\n"
                 f"\tobject given to template engine was:\n\t\t{go_sprint(data)}\n\n")
        raise KubectlTemplateError(f"error executing template {go_quote(text)}: {err}", err.output + debug) \
            from None
