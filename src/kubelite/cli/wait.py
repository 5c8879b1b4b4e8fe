"""`kubelite wait`: wait until objects exist, are gone, have a status condition, or a field has a
value — kubectl wait's conditions, messages and exit codes. The objects are read again every
POLL seconds until the condition holds or --timeout passes (0: look once, negative: a week)."""
from __future__ import annotations

import sys
import time

from kubelite.cli import common

POLL = 0.2
WEEK = 168 * 3600.0
TIMEOUT_TEXT = "timed out waiting for the condition"


class WaitFailed(common.CommandError):
    pass


def build_parser() -> common.Parser:
    p = common.parser("wait", "Wait for a condition on objects.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("-R", "--recursive", action="store_true", default=True)
    common.add_output_flag(p)
    common.add_template_flags(p)
    p.add_argument("--all", action="store_true")
    p.add_argument("--field-selector", default="")
    p.add_argument("--for", dest="for_condition", default="")
    p.add_argument("--local", action="store_true")
    p.add_argument("-l", "--selector", default="")
    p.add_argument("--timeout", default="30s")
    from kubelite.cli.help import installed

    return installed(p, "wait")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _wait)


# -- conditions --------------------------------------------------------------------------------

def condition_check(text: str):
    """(kind, check) for --for: check(obj) -> bool (may raise CommandError)."""
    lowered = text.lower()
    if lowered in ("delete", "create"):
        return lowered, None
    if text.startswith("condition="):
        name, _, value = text[len("condition="):].partition("=")
        return "condition", lambda obj: has_condition(obj, name, value or "true")
    if text.startswith("jsonpath="):
        return "jsonpath", _jsonpath_check(text[len("jsonpath="):])
    raise common.CommandError(f'error: unrecognized condition: "{text}"')


def has_condition(obj: dict, name: str, value: str) -> bool:
    status = obj.get("status") or {}
    for cond in status.get("conditions") or []:
        if not isinstance(cond, dict) or str(cond.get("type", "")).casefold() != name.casefold():
            continue
        if "status" not in cond:
            continue
        generation = (obj.get("metadata") or {}).get("generation")
        observed = cond.get("observedGeneration", status.get("observedGeneration"))
        if generation is not None and observed is not None and observed < generation:
            return False
        return str(cond["status"]).casefold() == value.casefold()
    return False


def _split_jsonpath(text: str) -> list[str]:
    """Split on single '=' ('==' stays), as kubectl does."""
    parts, current, i = [], [], 0
    while i < len(text):
        if text[i] == "=":
            if i + 1 < len(text) and text[i + 1] == "=":
                current.append("==")
                i += 2
                continue
            parts.append("".join(current))
            current = []
        else:
            current.append(text[i])
        i += 1
    return parts + ["".join(current)]


def _jsonpath_check(text: str):
    from kubelite.manifest import jsonpath
    from kubelite.manifest.table import TableError, relaxed_jsonpath

    parts = _split_jsonpath(text)
    if len(parts) > 2:
        raise common.CommandError("error: jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 "
                                  "or --for=jsonpath='{.status.readyReplicas}'")
    if not parts[0]:
        raise common.CommandError("error: jsonpath expression cannot be empty")
    try:
        expression = relaxed_jsonpath(parts[0])
    except TableError as err:
        raise common.CommandError(f"error: {err}") from None
    value = None
    if len(parts) == 2:
        value = parts[1].strip("'\"")
        if not value:
            raise common.CommandError("error: jsonpath wait has to have a value after equal sign, like "
                                      "--for=jsonpath='{.status.readyReplicas}'=3")
    template = jsonpath.parse(expression)

    def check(obj: dict) -> bool:
        results = jsonpath.find_results(template, obj)
        if not results or not results[0]:
            return False
        if len(results) > 1:
            raise common.CommandError("error: given jsonpath expression matches more than one list")
        if len(results[0]) > 1:
            raise common.CommandError("error: given jsonpath expression matches more than one value")
        if value is None:
            return True
        found = results[0][0]
        if isinstance(found, (dict, list)):
            raise common.CommandError("error: jsonpath leads to a nested object or list which is not supported")
        return jsonpath.format_results([[found]]).strip() == value.strip()

    return check


# -- the command ---------------------------------------------------------------------------------

def _timeout(text: str) -> float:
    negative = text.startswith("-")
    try:
        seconds = common.parse_duration(text.lstrip("-")) or 0.0
    except common.CommandError:
        raise common.CommandError(f'error: invalid argument "{text}" for "--timeout" flag: time: invalid duration '
                                  f'"{text}"') from None
    return WEEK if negative and seconds else seconds


def _wait(args) -> int:
    kind, check = condition_check(args.for_condition)
    timeout = _timeout(args.timeout)
    deadline = time.monotonic() + timeout
    output = common.output_of(args) if args.output else None
    sess = common.session(args)
    if kind == "create":
        _await_creation(sess, args, deadline)
    targets = _targets(sess, args, ignore_missing=kind == "delete")
    if not targets and kind != "delete":
        raise common.CommandError("error: no matching resources found")
    errors = []
    for request, obj in targets:
        try:
            final = _await_one(sess, request, obj, kind, check, timeout, deadline)
        except common.CommandError as err:
            errors.append(err)
            break  # kubectl's visitor stops at the first failure
        _print(final, output)
    return common.report(errors)


def _print(obj: dict, output) -> None:
    if output is not None:
        sys.stdout.write(common.render(output, obj))
    else:
        sys.stdout.write(common.success_line(obj, "condition met", "none"))
    sys.stdout.flush()


def _targets(sess, args, ignore_missing: bool) -> list[tuple]:
    """(request, object) for every object selected; named objects that do not exist are errors
    (NotFound), except when waiting for deletion."""
    from kubelite.client.errors import ApiError

    if args.selector or args.all or args.field_selector:
        selection = common.build(sess, args, args.args, verb="wait")
    else:
        selection = common.build(sess, args, args.args, verb="wait", require_names=not args.filename)
    out = []
    for request in selection.requests:
        if request.name is None and request.obj is None:
            listing = sess.client.list(request.resource, request.namespace, label_selector=args.selector or None,
                                       field_selector=args.field_selector or None)
            for item in listing.get("items") or []:
                item.setdefault("kind", request.resource.kind)
                item.setdefault("apiVersion", listing.get("apiVersion"))
                out.append((request, item))
            continue
        name = request.name or ((request.obj or {}).get("metadata") or {}).get("name")
        namespace = request.namespace
        if request.obj is not None and request.resource.namespaced:
            namespace = ((request.obj.get("metadata") or {}).get("namespace")) or namespace
        try:
            obj = sess.client.get(request.resource, name, namespace)
        except ApiError as err:
            if err.code == 404 and ignore_missing:
                continue
            raise
        out.append((common.Request(request.resource, namespace, name), obj))
    return out


def _await_creation(sess, args, deadline: float) -> None:
    from kubelite.client.errors import ApiError

    while True:
        try:
            _targets(sess, args, ignore_missing=False)
            return
        except ApiError as err:
            if err.code != 404:
                raise
        if time.monotonic() >= deadline:
            raise WaitFailed(f"error: {TIMEOUT_TEXT}")
        time.sleep(POLL)


def _await_one(sess, request, obj: dict, kind: str, check, timeout: float, deadline: float) -> dict:
    from kubelite.client.errors import ApiError

    resource = request.resource
    meta = obj.get("metadata") or {}
    name, namespace, uid = meta.get("name"), meta.get("namespace") or request.namespace, meta.get("uid")
    where = f"{resource.resource}/{name}"
    described = f"{resource.resource}{'.' + resource.group if resource.group else ''}/{name}"
    if kind == "create":
        return obj
    first = True
    while True:
        if not first:
            try:
                current = sess.client.get(resource, name, namespace)
            except ApiError as err:
                if err.code != 404:
                    raise
                current = None
        else:
            current = obj
        first = False
        if kind == "delete":
            if current is None or (current.get("metadata") or {}).get("uid") != uid:
                return obj
        elif current is None:
            raise common.CommandError(f'Error from server (NotFound): {resource.resource} "{name}" not found')
        elif check(current):
            return current
        if timeout == 0:
            raise WaitFailed(f"error: condition not met for {described}")
        if time.monotonic() >= deadline:
            raise WaitFailed(f"error: {TIMEOUT_TEXT} on {where}")
        time.sleep(POLL)
