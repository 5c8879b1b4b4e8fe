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
    common.add_template_flags(p)
    p.add_argument("--output-watch-events", action="store_true", help="print watch event types")
    p.add_argument("--show-labels", action="store_true", help="show all labels as the last column")
    p.add_argument("-L", "--label-columns", action="append", default=[], help="labels to show as columns")
    p.add_argument("--sort-by", default="", help="sort list types by a JSONPath expression")
    p.add_argument("--ignore-not-found", action="store_true", help="treat NotFound as success (no output)")
    p.add_argument("--chunk-size", type=int, default=500, help="list in chunks of this size (0: all at once)")
    p.add_argument("--show-kind", action="store_true", help="prefix names with their kind")
    p.add_argument("--no-headers", action="store_true", help="omit table headers")
    p.add_argument("--server-print", nargs="?", const="true", default="true",
                   help="false: print NAME/AGE from the objects instead of the server's table")
    p.add_argument("--validate", default="true", help=argparse_hidden())
    from kubelite.cli.raw import add_raw_flag

    add_raw_flag(p, "a server path to GET, printing the response body as it comes")
    p.add_argument("--subresource", default="", help="get this subresource (status, scale) of the named objects")
    from kubelite.cli.help import installed

    return installed(p, "get")


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


def run(argv: list[str]) -> int:
    p = build_parser()
    return common.run(p, argv, _get)


def _get(args) -> int:
    args._verb = "get"
    if args.raw:
        return _raw(args)
    output = common.output_of(args, common.GET_FORMATS)
    sess = common.session(args)
    errors: list = []
    selection = common.build(sess, args, args.args, verb="get", errors=errors)
    if args.subresource and any(r.name is None and r.obj is None for r in selection.requests):
        raise common.CommandError("error: subresource cannot be used when bulk resources are specified")
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


def _raw(args) -> int:
    """kubectl get --raw: positional arguments refused, other flags checked, then one GET."""
    from kubelite.cli import raw

    if args.args:
        raise common.CommandError("error: arguments may not be passed when --raw is specified")
    if args.watch or args.watch_only or args.selector:
        raise common.CommandError("error: --raw may not be specified with other flags that filter the server "
                                  "request or alter the output")
    raw.check_output(args)
    raw.check_uri(args.raw)
    return raw.send(args, "GET")


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
            return [client.get(request.resource, name, request.namespace, accept=accept, params=params,
                               subresource=args.subresource or None)]
        if request.obj is not None:
            return []
        return list(client.list_pages(request.resource, request.namespace, chunk_size=args.chunk_size,
                                      accept=accept, params=params, **_query(args)))
    except ClientError as err:
        if args.ignore_not_found and is_not_found(err):
            return []
        errors.append(err)
        return []


def _server_print(value: str) -> bool:
    text = str(value).lower()
    if text in ("true", "t", "1"):
        return True
    if text in ("false", "f", "0"):
        return False
    raise common.UsageError(f'Error: invalid argument "{value}" for "--server-print" flag: strconv.ParseBool: '
                            f'parsing "{value}": invalid syntax\nSee \'kubelite get --help\' for usage.')


def _print_tables(sess, args, selection, output, label_columns, errors) -> bool:
    from kubelite.client.dynamic import TABLE_ACCEPT
    from kubelite.manifest import name as names
    from kubelite.manifest.table import render_groups

    server_print = _server_print(args.server_print)
    params = {"includeObject": "Object"} if args.sort_by else None
    show_kind = args.show_kind or selection.multiple_types
    groups: list = []  # consecutive requests of the same resource share one table
    for request in selection.requests:
        if server_print:
            tables = _fetch(sess, args, request, TABLE_ACCEPT, params, errors)
        else:
            from kubelite.cli.client_table import as_table

            listed = request.name is None
            tables = [as_table(obj, listed) for obj in _fetch(sess, args, request, None, None, errors)]
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
    """-w / --watch-only as kubectl's: print the current state (unless --watch-only), then each
    change as it arrives, until the stream ends (--request-timeout, or the server closes it)."""
    requests = selection.requests
    from_files = bool(args.filename or getattr(args, "kustomize", None))
    if len({(r.resource.group, r.resource.resource) for r in requests}) > 1:
        if from_files:
            raise common.CommandError("error: watch is only supported on individual resources and resource "
                                      "collections - more than 1 resource was found")
        raise common.CommandError("error: you may only specify a single resource type")
    if not requests:
        return common.report(errors)
    if args.sort_by:
        sys.stderr.write("warning: --watch-only requested, --sort-by will be ignored\n" if args.watch_only else
                         "warning: --watch requested, --sort-by will be ignored for watch events received\n")
    printer = _WatchPrinter(args, output, label_columns, requests[0].resource)
    tables = printer.human and _server_print(args.server_print)
    # One named object: the watch starts at "now" and opens with a synthetic ADDED event for it,
    # which is not printed (the object was just printed). Collections watch from the list's
    # resourceVersion, which sends no such event.
    single = len(requests) == 1 and selection.single_item
    current, rv = _current_state(sess, args, requests, printer.human, single, tables)
    printer.printing = not args.watch_only
    for obj in current:
        printer.initial(obj)
    printer.printing = not single
    if len(requests) > 1:
        if from_files:
            raise common.CommandError("error: watch is only supported on individual resources and resource "
                                      f"collections - {len(requests)} resources were found")
        raise common.CommandError("error: you may only watch a single resource or type of resource at a time")
    request = requests[0]
    for event in sess.client.watch(request.resource, request.namespace, name=request.name, resource_version=rv,
                                   label_selector=args.selector, field_selector=args.field_selector,
                                   accept=_accept(tables)):
        printer.event(event)
        printer.printing = True
    return common.report(errors)


def _accept(human: bool) -> str | None:
    """Tables for the human printers, plain objects otherwise."""
    from kubelite.client.dynamic import TABLE_ACCEPT

    return TABLE_ACCEPT if human else None


def _current_state(sess, args, requests, human: bool, single: bool, tables: bool) -> tuple[list[dict], str]:
    """The objects (or Tables) to print first, and the resourceVersion to watch from; `tables`
    False (--server-print=false) builds the human printer's Tables here from plain objects."""
    from kubelite.cli.client_table import as_table

    client = sess.client
    accept = _accept(tables)
    params = {"includeObject": "Object"} if tables and args.sort_by else None
    shown: list[dict] = []
    versions = set()
    for request in requests:
        if request.name is not None:
            found = client.get(request.resource, request.name, request.namespace, accept=accept, params=params)
            shown.append(found if tables or not human else as_table(found, listed=False))
            versions.add((found.get("metadata") or {}).get("resourceVersion") or "")
            continue
        for page in client.list_pages(request.resource, request.namespace, chunk_size=args.chunk_size,
                                      accept=accept, params=params, **_query(args)):
            versions.add((page.get("metadata") or {}).get("resourceVersion") or "")
            if human:
                shown.append(page if tables else as_table(page, listed=True))
            else:
                shown.extend(common.with_type(item, request.resource) for item in page.get("items") or ())
    if human and args.sort_by:
        from kubelite.manifest.table import _sort_rows

        field = common_relaxed(args.sort_by)
        shown = [{**table, "rows": _sort_rows(list(table.get("rows") or []), field)} for table in shown]
    elif args.sort_by:
        shown = _sorted(shown, args.sort_by)
    rv = "0" if single else (versions.pop() if len(versions) == 1 else "")
    return shown, rv


class _WatchPrinter:
    """kubectl's printer for a watch: Tables share one header and remembered column widths;
    YAML documents are separated by `---`; with --output-watch-events each object is wrapped
    in its event (JSON then on one line). `printing` False swallows what is printed."""

    def __init__(self, args, output, label_columns, resource):
        from kubelite.manifest.table import TableStream

        self.human = output.human
        self.output = output
        self.with_events = args.output_watch_events
        self.resource = resource
        self.server_print = _server_print(args.server_print)
        self.printing = True
        self.count = 0
        self.tables = TableStream(wide=output.kind == "wide", no_headers=args.no_headers,
                                  show_labels=args.show_labels, label_columns=label_columns,
                                  all_namespaces=args.all_namespaces and resource.namespaced) if self.human else None

    def initial(self, obj: dict) -> None:
        self._print(obj, "ADDED")

    def event(self, event: dict) -> None:
        obj = event.get("object") or {}
        kind = str(event.get("type") or "")
        if kind != "ERROR" and not self.human:
            obj = common.with_type(obj, self.resource)
        elif kind != "ERROR" and not self.server_print:
            from kubelite.cli.client_table import as_table

            obj = as_table(obj, listed=False)
        self._print(obj, kind)

    def _print(self, obj: dict, event: str) -> None:
        if not self.printing:
            return
        if self.human:
            table = obj if obj.get("kind") == "Table" else _status_table(obj)
            text = self.tables.print(table, event if self.with_events else "")
        else:
            text = self._document(obj, event)
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()

    def _document(self, obj: dict, event: str) -> str:
        kind = self.output.kind
        if self.with_events and kind == "json":
            from kubelite.manifest.jsonfmt import _string, to_compact_json

            return '{"type":' + _string(event) + ',"object":' + to_compact_json(obj) + "}\n"
        target = {"object": obj, "type": event} if self.with_events and kind != "name" else obj
        text = common.render(self.output, target)
        if kind == "yaml" and self.count:
            text = "---\n" + text
        self.count += 1
        return text


def _status_table(status: dict) -> dict:
    """A watch ERROR (a Status) as kubectl's human printer shows it."""
    columns = [{"name": name, "type": "string"} for name in ("Status", "Reason", "Message")]
    cells = [status.get("status", ""), status.get("reason", ""), status.get("message", "")]
    return {"kind": "Table", "columnDefinitions": columns, "rows": [{"cells": cells}]}
