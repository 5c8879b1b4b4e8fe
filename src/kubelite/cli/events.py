"""`kubelite events`: list (and watch) core/v1 Events, oldest first, as kubectl events does."""
from __future__ import annotations

import sys
import time

from kubelite.cli import common

_OUTPUTS = ("go-template", "go-template-file", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name",
            "template", "templatefile", "yaml")


def build_parser() -> common.Parser:
    p = common.parser("events", "List events.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    common.add_output_flag(p)
    common.add_template_flags(p)
    p.add_argument("--chunk-size", type=int, default=500)
    p.add_argument("--for", dest="for_object", default="")
    p.add_argument("--no-headers", action="store_true")
    p.add_argument("--types", action="append", default=[])
    p.add_argument("-w", "--watch", action="store_true")
    from kubelite.cli.help import installed

    return installed(p, "events")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _events)


def _for_selector(sess, text: str) -> str:
    if "/" not in text:
        raise common.CommandError("error: --for must be in resource/name form")
    parts = text.split("/")
    if len(parts) != 2:
        raise common.CommandError("error: arguments in resource/name form may not have more than one slash")
    from kubelite.client.errors import ResourceTypeNotFound

    try:
        info = sess.discovery.resolve(parts[0].lower())
    except ResourceTypeNotFound as err:
        raise common.VerbatimError(str(err).removeprefix("error: ")) from None
    api_version = f"{info.group}/{info.version}" if info.group else info.version
    return f"involvedObject.kind={info.kind},involvedObject.apiVersion={api_version},involvedObject.name={parts[1]}"


def _types(args) -> list[str]:
    types = sorted({t for value in args.types for t in value.split(",") if t})
    for t in types:
        if t.lower() not in ("normal", "warning"):
            raise common.CommandError("error: valid --types are Normal or Warning")
    return types


def _wanted(event: dict, types: list[str]) -> bool:
    return not types or any(t.lower() == str(event.get("type", "")).lower() for t in types)


def event_time(event: dict) -> float:
    """kubectl's sort time: series last observed, else lastTimestamp, else eventTime."""
    from kubelite.server.clock import parse_time

    series = event.get("series") or {}
    for value in (series.get("lastObservedTime"), event.get("lastTimestamp"), event.get("eventTime")):
        when = parse_time(value)
        if when is not None:
            return when
    return float("-inf")


def _since(value, now: float) -> str:
    from kubelite.manifest.table import human_duration
    from kubelite.server.clock import parse_time

    when = parse_time(value)
    return "<unknown>" if when is None else human_duration(now - when)


def interval(event: dict, now: float) -> str:
    first = _since(event.get("eventTime"), now) if event.get("eventTime") else _since(event.get("firstTimestamp"), now)
    series = event.get("series")
    if series:
        return f"{_since(series.get('lastObservedTime'), now)} (x{series.get('count')} over {first})"
    if (event.get("count") or 0) > 1:
        return f"{_since(event.get('lastTimestamp'), now)} (x{event.get('count')} over {first})"
    return first


def row(event: dict, now: float, all_namespaces: bool) -> str:
    involved = event.get("involvedObject") or {}
    cells = [interval(event, now), event.get("type") or "", event.get("reason") or "",
             f"{involved.get('kind', '')}/{involved.get('name', '')}", (event.get("message") or "").strip()]
    if all_namespaces:
        cells.insert(0, (event.get("metadata") or {}).get("namespace", ""))
    return "\t".join(cells) + "\n"


def _render(output, obj: dict) -> str:
    """kubectl prints the typed EventList: JSON in Go struct order, and nothing for -o name."""
    if output.kind == "name":
        return ""
    if output.kind == "json":
        import json

        from kubelite.schema.goorder import as_served

        if not output.show_managed_fields:
            obj = common.without_managed_fields(obj)
        return json.dumps(as_served(obj), indent=4, ensure_ascii=False) + "\n"
    return common.render(output, obj)


def _header(all_namespaces: bool) -> str:
    return ("NAMESPACE\t" if all_namespaces else "") + "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n"


def _events(args) -> int:
    from kubelite.manifest.table import TabWriter

    if args.args:
        raise common.CommandError(f"error: unknown command {args.args[0]!r} for \"kubelite events\"")
    output = common.output_of(args, _OUTPUTS) if args.output else None
    types = _types(args)
    sess = common.session(args)
    events_r = sess.discovery.resolve("events")
    namespace = None if args.all_namespaces else sess.namespace
    selector = _for_selector(sess, args.for_object) if args.for_object else None
    if args.watch:
        return _watch(sess, events_r, namespace, selector, types, output, args)
    items = []
    for page in sess.client.list_pages(events_r, namespace, chunk_size=args.chunk_size, field_selector=selector):
        items.extend(page.get("items") or [])
    items = [dict(e, kind=e.get("kind") or "Event", apiVersion=e.get("apiVersion") or "v1")
             for e in items if _wanted(e, types)]
    if not items:
        print("No events found." if args.all_namespaces else f"No events found in {sess.namespace} namespace.",
              file=sys.stderr)
        return 0
    items.sort(key=event_time)
    if output is not None:
        sys.stdout.write(_render(output, {"kind": "EventList", "apiVersion": "v1", "metadata": {}, "items": items}))
        return 0
    writer = TabWriter()
    if not args.no_headers:
        writer.write(_header(args.all_namespaces))
    now = time.time()
    for event in items:
        writer.write(row(event, now, args.all_namespaces))
    writer.flush()
    sys.stdout.write(writer.getvalue())
    return 0


def _watch(sess, events_r, namespace, selector, types, output, args) -> int:
    from kubelite.manifest.table import TabWriter

    writer = TabWriter()
    shown = 0  # how much of the writer's output is on the screen already
    if output is None and not args.no_headers:
        writer.write(_header(args.all_namespaces))
    for event in sess.client.watch(events_r, namespace, field_selector=selector):
        if event.get("type") == "DELETED":
            continue
        obj = event.get("object") or {}
        if not _wanted(obj, types):
            continue
        if output is not None:
            sys.stdout.write(_render(output, dict(obj, kind="Event", apiVersion="v1")))
        else:
            writer.write(row(obj, time.time(), args.all_namespaces))
            writer.flush()
            text = writer.getvalue()
            sys.stdout.write(text[shown:])
            shown = len(text)
        sys.stdout.flush()
    return 0
