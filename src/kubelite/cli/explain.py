"""`kubelite explain RESOURCE[.FIELD...]`: field documentation from the server's OpenAPI v3."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Get the documentation of the resource and its fields
  kubelite explain pods

  # Get all the fields in the resource
  kubelite explain pods --recursive

  # Get the explanation for deployment in supported api versions
  kubelite explain deployments --api-version=apps/v1

  # Get the documentation of a specific field of a resource
  kubelite explain pods.spec.containers
"""

FORMATS = ("plaintext",)


def build_parser() -> common.Parser:
    p = common.parser("explain", "Describe fields and structure of various resources, from the server's "
                                 "OpenAPI v3 documents.", EXAMPLES)
    common.add_connection_flags(p)
    p.add_argument("resource", nargs="*", help="RESOURCE[.FIELD...]")
    p.add_argument("--recursive", nargs="?", const="true", default="false",
                   help="print the names of all fields recursively instead of their descriptions")
    p.add_argument("--api-version", default="", help="use this api-version (group/version) of the resource")
    p.add_argument("-o", "--output", default="plaintext", help="format: plaintext")
    p.add_argument("-n", "--namespace", help="accepted for kubectl compatibility")
    from kubelite.cli.help import installed

    return installed(p, "explain")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _explain)


def _explain(args) -> int:
    from kubelite.explain import ExplainError, render

    if not args.resource:
        raise common.CommandError("error: You must specify the type of resource to explain. Use \"kubelite "
                                  "api-resources\" for a complete list of supported resources.\n")
    if len(args.resource) > 1:
        raise common.CommandError("error: We accept only this format: explain RESOURCE\n")
    recursive = _bool_flag("recursive", args.recursive)
    if args.output not in FORMATS:
        raise common.CommandError(f"error: unrecognized format: {args.output}")
    sess = common.session(args)
    info, fields = _split(sess, args.resource[0], bool(args.api_version))
    group, version = info.group, info.version
    if args.api_version:
        group, _, version = args.api_version.rpartition("/")
    document = _document(sess, group, version, info.resource)
    try:
        text = render(document, group, version, info.resource, fields, recursive)
    except ExplainError as err:
        sys.stdout.write(err.partial)
        sys.stdout.flush()
        raise common.CommandError(str(err)) from None
    sys.stdout.write(text)
    return 0


def _bool_flag(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "1", "t"):
        return True
    if lowered in ("false", "0", "f"):
        return False
    raise common.UsageError(f'error: invalid argument "{value}" for "--{name}" flag: strconv.ParseBool: '
                            f'parsing "{value}": invalid syntax')


def _split(sess, typed: str, exact: bool):
    """(resource, field path) for `RESOURCE[.FIELD...]`, as kubectl splits it.

    Without --api-version kubectl first looks for a `resource.group` prefix (`deployments.apps.spec`);
    otherwise the first dot-separated part is the resource and the rest are fields.
    """
    from kubelite.client.errors import ResourceTypeNotFound

    text = typed[:-1] if typed.endswith(".") else typed
    parts = text.split(".")
    if not parts[0] or any(not p for p in parts[1:]):
        raise common.CommandError(f"error: invalid jsonpath syntax in {typed!r}")
    try:
        info = sess.discovery.resolve(parts[0])
    except ResourceTypeNotFound as err:
        # explain reports the mapper's NoResourceMatchError without the `error: ` prefix
        sys.stdout.flush()
        sys.stderr.write(f"{err}\n")
        raise common.Failed(1) from None
    if not exact:
        for candidate in _candidates(sess, parts[0], info):
            qualified = f"{candidate.resource}.{candidate.group}" if candidate.group else candidate.resource
            if text.startswith(qualified):
                rest = text[len(qualified):]
                return candidate, [p for p in rest.split(".") if p]
    return info, parts[1:]


def _candidates(sess, name: str, first) -> list:
    lowered = name.lower()
    found = [first]
    for r in sess.discovery.registry.preferred():
        if r is first or (r.group, r.resource) == (first.group, first.resource):
            continue
        if lowered in (r.resource, r.singular, r.kind.lower(), *r.short_names):
            found.append(r)
    return found


def _document(sess, group: str, version: str, resource: str) -> dict:
    """The OpenAPI v3 document of one group-version, located through /openapi/v3."""
    key = f"apis/{group}/{version}" if group else f"api/{version}"
    index = sess.transport.json("GET", "/openapi/v3", accept="application/json")
    entry = (index.get("paths") or {}).get(key) if isinstance(index, dict) else None
    if not isinstance(entry, dict) or not entry.get("serverRelativeURL"):
        raise common.CommandError(f'error: couldn\'t find resource for "{group}/{version}, Resource={resource}"')
    document = sess.transport.json("GET", entry["serverRelativeURL"], accept="application/json")
    if not isinstance(document, dict):
        raise common.CommandError(f"error: failed to parse openapi schema for {key}")
    return document
