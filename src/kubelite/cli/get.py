"""`kubelite get`: display one or many resources, as kubectl get does.

Human-readable output comes from the server's Tables (`Accept: ...;as=Table`), printed by
kubelite.manifest.table; -o yaml/json/name/jsonpath/custom-columns print the objects (a List
unless exactly one object was named).
"""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # List all pods in the current namespace, in a table
  kubelite get pods

  # One deployment, as YAML
  kubelite get deployment nginx -o yaml
  kubelite get deploy/nginx -o yaml

  # Objects described in a file, and several types at once
  kubelite get -f deployment.yaml -o yaml
  kubelite get deployments,services -l app=web

  # Everything in the `all` category, in every namespace
  kubelite get all -A

  # Watch for changes
  kubelite get pods -w
"""


def build_parser() -> common.Parser:
    p = common.parser("get", "Display one or many resources.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="TYPE[.GROUP] [NAME...] | TYPE/NAME")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    common.add_filename_flags(p, "to get")
    common.add_selector_flags(p)
    common.add_output_flag(p, "yaml|json|name|wide|jsonpath=...|jsonpath-file=...|custom-columns=...|"
                              "custom-columns-file=...")
    p.add_argument("-w", "--watch", action="store_true", help="after listing, watch for changes")
    p.add_argument("--watch-only", action="store_true", help="watch for changes without listing first")
    p.add_argument("--output-watch-events", action="store_true", help="print watch event types")
    p.add_argument("--show-labels", action="store_true", help="show all labels as the last column")
    p.add_argument("-L", "--label-columns", action="append", default=[], help="labels to show as columns")
    p.add_argument("--sort-by", default="", help="sort list types by a JSONPath expression")
    p.add_argument("--ignore-not-found", action="store_true", help="treat NotFound as success (no output)")
    p.add_argument("--chunk-size", type=int, default=500, help="list in chunks of this size (0: all at once)")
    p.add_argument("--show-kind", action="store_true", help="prefix names with their kind")
    p.add_argument("--no-headers", action="store_true", help="omit table headers")
    p.add_argument("--validate", default="true", help=argparse_hidden())
    return p


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


def run(argv: list[str]) -> int:
    p = build_parser()
    return common.run(p, argv, _get)


def _get(args) -> int:
    args._verb = "get"
    output = common.parse_output(args.output, common.GET_FORMATS)
    sess = common.session(args)
    errors: list = []
    selection = common.build(sess, args, args.args, verb="get", errors=errors)
    label_columns = [c for value in args.label_columns for c in value.split(",") if c]
    if args.watch or args.watch_only:
        return _watch(sess, args, selection, output, label_columns, errors)
    if output.human:
        printed = _print_tables(sess, args, selection, output, label_columns, errors)
    else:
        printed = _print_objects(sess, args, selection, output, errors)
    if not printed and not errors and not args.ignore_not_found:
        namespaced = not args.all_namespaces and all(r.resource.namespaced for r in selection.requests)
        from kubelite.manifest.table import no_resources_message

        sys.stdout.flush()
        sys.stderr.write(no_resources_message(sess.namespace if namespaced else None))
    return common.report(errors)


def _query(args) -> dict:
    return {"label_selector": args.selector, "field_selector": args.field_selector}


def _fetch(sess, args, request, accept: str | None, params: dict | None, errors: list) -> list[dict]:
    """The object(s) one request yields: a named object, or list pages."""
    from kubelite.client.errors import ClientError, is_not_found

    client = sess.client
    name = request.name
    try:
        if name is not None:
            if args.selector or args.field_selector:
                raise common.CommandError("error: name cannot be provided when a selector is specified")
            return [client.get(request.resource, name, request.namespace, accept=accept, params=params)]
        if request.obj is not None:
            return []
        return list(client.list_pages(request.resource, request.namespace, chunk_size=args.chunk_size,
                                      accept=accept, params=params, **_query(args)))
    except ClientError as err:
        if args.ignore_not_found and is_not_found(err):
            return []
        errors.append(err)
        return []


def _print_tables(sess, args, selection, output, label_columns, errors) -> bool:
    from kubelite.client.dynamic import TABLE_ACCEPT
    from kubelite.manifest import name as names
    from kubelite.manifest.table import render_groups

    params = {"includeObject": "Object"} if args.sort_by else None
    show_kind = args.show_kind or selection.multiple_types
    groups: list = []  # consecutive requests of the same resource share one table
    for request in selection.requests:
        tables = _fetch(sess, args, request, TABLE_ACCEPT, params, errors)
        key = (request.resource.group, request.resource.resource)
        kind = names.group_kind(request.resource.api_version, request.resource.kind) if show_kind else None
        if groups and groups[-1][0] == key:
            groups[-1][2].extend(tables)
        else:
            groups.append((key, kind, tables, request.resource.namespaced))
    text = render_groups([(kind, tables, namespaced) for _, kind, tables, namespaced in groups],
                         wide=output.kind == "wide", no_headers=args.no_headers, show_labels=args.show_labels,
                         label_columns=label_columns, all_namespaces=args.all_namespaces, sort_by=args.sort_by or None)
    sys.stdout.write(text)
    return bool(text)


def _print_objects(sess, args, selection, output, errors) -> bool:
    from kubelite.manifest import as_list

    objects: list[dict] = []
    for request in selection.requests:
        for obj in _fetch(sess, args, request, None, None, errors):
            if isinstance(obj.get("items"), list) and request.name is None:
                objects.extend(common.with_type(item, request.resource) for item in obj["items"])
            else:
                objects.append(obj)
    if selection.single_item and errors:
        return False  # kubectl returns the error of a single implied item without printing a List
    if args.sort_by:
        objects = _sorted(objects, args.sort_by)
    if selection.single_item and len(objects) == 1:
        target = objects[0]
    else:
        if not objects and args.ignore_not_found:
            return False
        target = as_list(objects)
    text = common.render(output, target)
    sys.stdout.write(text)
    return True


def _sorted(objects: list[dict], sort_by: str) -> list[dict]:
    from kubelite.manifest.table import _sort_rows  # the same ordering as table rows

    rows = [{"object": obj} for obj in objects]
    return [row["object"] for row in _sort_rows(rows, common_relaxed(sort_by))]


def common_relaxed(sort_by: str) -> str:
    from kubelite.manifest.table import relaxed_jsonpath

    return relaxed_jsonpath(sort_by)


def _watch(sess, args, selection, output, label_columns, errors) -> int:
    """-w / --watch-only: print the current state (unless --watch-only), then each change."""
    from kubelite.client.dynamic import TABLE_ACCEPT
    from kubelite.manifest.table import TabWriter, render_groups

    if len(selection.requests) != 1:
        raise common.CommandError("error: watch is only supported on individual resources and resource "
                                  "collections, but " + str(len(selection.requests)) + " resources were found")
    request = selection.requests[0]
    client = sess.client
    accept = TABLE_ACCEPT if output.human else None
    # The current state, and the revision to watch from.
    if request.name is not None:
        first = client.get(request.resource, request.name, request.namespace, accept=accept)
        listing = client.list(request.resource, request.namespace, field_selector=f"metadata.name={request.name}",
                              limit=1)
    else:
        first = client.list(request.resource, request.namespace, accept=accept, **_query(args))
        listing = first if not output.human else None
    rv = ((listing or first).get("metadata") or {}).get("resourceVersion") if listing is not None else \
        (first.get("metadata") or {}).get("resourceVersion")
    if output.human:
        if not args.watch_only:
            sys.stdout.write(render_groups([(None, [first], request.resource.namespaced)],
                                           wide=output.kind == "wide", no_headers=args.no_headers,
                                           show_labels=args.show_labels, label_columns=label_columns,
                                           all_namespaces=args.all_namespaces))
            sys.stdout.flush()
        printed_header = not args.watch_only and bool((first.get("rows") or []))
        for event in client.watch(request.resource, request.namespace, name=request.name, resource_version=rv,
                                  label_selector=args.selector, field_selector=args.field_selector, accept=accept):
            table = event.get("object") or {}
            if event.get("type") == "ERROR":
                raise _watch_error(table)
            text = render_groups([(None, [table], request.resource.namespaced)], wide=output.kind == "wide",
                                 no_headers=args.no_headers or printed_header, show_labels=args.show_labels,
                                 label_columns=label_columns, all_namespaces=args.all_namespaces)
            printed_header = True
            sys.stdout.write(text)
            sys.stdout.flush()
        return common.report(errors)
    printer = common.ObjectPrinter(output)
    if not args.watch_only:
        items = first.get("items") if request.name is None else [first]
        for item in items or ():
            printer.print(common.with_type(item, request.resource))
    for event in client.watch(request.resource, request.namespace, name=request.name, resource_version=rv,
                              label_selector=args.selector, field_selector=args.field_selector):
        if event.get("type") == "ERROR":
            raise _watch_error(event.get("object") or {})
        obj = event.get("object") or {}
        printer.print(common.with_type(obj, request.resource) if not args.output_watch_events
                      else {"type": event.get("type"), "object": obj})
    return common.report(errors)


def _watch_error(status: dict):
    from kubelite.client.errors import ApiError

    return ApiError(status)
