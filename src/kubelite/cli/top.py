"""`kubelite top node|pod`: resource usage from the metrics API (metrics.k8s.io), as kubectl top
asks for it and prints it (kubelite.cli.top_table).

A server without that API (no metrics-server; kubelite's own without its simulated kubelet) ends
the commands with kubectl's error, `error: Metrics API not available`.
"""
from __future__ import annotations

import sys

from kubelite.cli import common

NOT_AVAILABLE = "error: Metrics API not available"
_SUBCOMMANDS = {"node": "node", "nodes": "node", "no": "node", "pod": "pod", "pods": "pod", "po": "pod"}


def build_parser(which: str) -> common.Parser:
    p = common.parser(f"top {which}", f"Show how much CPU and memory {which}s use.")
    p.add_argument("names", nargs="*", metavar="NAME")
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", default=None, help="the namespace of the pods")
    p.add_argument("-l", "--selector", default="", help="label selector")
    p.add_argument("--no-headers", action="store_true", help="no header line")
    p.add_argument("--sort-by", default="", help="cpu or memory")
    p.add_argument("--use-protocol-buffers", default="true", help="accepted for kubectl compatibility")
    if which == "node":
        p.add_argument("--show-capacity", action="store_true", help="usage against capacity")
    else:
        p.add_argument("-A", "--all-namespaces", action="store_true", help="pods of every namespace")
        p.add_argument("--containers", action="store_true", help="one line per container")
        p.add_argument("--field-selector", default="", help="field selector")
        p.add_argument("--sum", action="store_true", help="a line with the totals")
    from kubelite.cli.help import installed

    return installed(p, f"top {which}")


def run(argv: list[str]) -> int:
    words = [a for a in argv if not a.startswith("-")]
    which = _SUBCOMMANDS.get(words[0]) if words else None
    if which is None:
        return _usage(argv)
    rest = list(argv)
    rest.remove(words[0])
    return common.run(build_parser(which), rest, _top)


def _usage(argv: list[str]) -> int:
    """`top` alone shows its help; as kubectl, on stderr and failing unless -h was asked for."""
    from kubelite.cli.help import render
    from kubelite.cli.help_texts import HELP

    text = render(HELP["top"], None)
    if "-h" in argv or "--help" in argv:
        sys.stdout.write(text)
        return 0
    sys.stderr.write(text)
    return 1


def _top(args) -> int:
    which = "node" if hasattr(args, "show_capacity") else "pod"
    if len(args.names) > 1:
        raise common.CommandError(f"error: {which} [NAME | -l label]\n"
                                  f"See 'kubelite top {which} -h' for help and examples")
    name = args.names[0] if args.names else ""
    if args.sort_by and args.sort_by not in ("cpu", "memory"):
        raise common.CommandError("error: --sort-by accepts only cpu or memory")
    if which == "node":
        if name and args.selector:
            raise common.CommandError("error: only one of NAME or --selector can be provided")
    elif name and (args.selector or args.field_selector):
        raise common.CommandError("error: only one of NAME or selector can be provided")
    _check_selectors(args.selector, getattr(args, "field_selector", ""))
    sess = common.session(args)
    metrics = _metrics_resources(sess)
    text = _top_nodes(sess, metrics, args, name) if which == "node" else _top_pods(sess, metrics, args, name)
    sys.stdout.write(text)
    return 0


def _check_selectors(labels: str, fields: str) -> None:
    """kubectl parses both selectors before it asks the server anything."""
    from kubelite.labels import SelectorSyntaxError, parse_requirements
    from kubelite.server.errors import StatusError
    from kubelite.server.selectors import field_selector_terms

    try:
        parse_requirements(labels)
        field_selector_terms(fields)
    except SelectorSyntaxError as err:
        raise common.CommandError(f"error: {err}") from None
    except StatusError as err:
        raise common.CommandError(f"error: {err.message}") from None


def _metrics_resources(sess) -> dict:
    """metrics.k8s.io/v1beta1 nodes and pods, or kubectl's error when the server lacks them."""
    from kubelite.server.metrics import GROUP, VERSION

    discovery = sess.discovery
    if discovery.registry.group(GROUP) is None:
        discovery.refresh()  # kubectl asks the server afresh: a cached answer may predate the API
    registry = discovery.registry
    group = registry.group(GROUP)
    if group is None or VERSION not in group.versions:
        raise common.CommandError(NOT_AVAILABLE)
    return {r: registry.lookup(GROUP, VERSION, r) for r in ("nodes", "pods")}


def _top_nodes(sess, metrics: dict, args, name: str) -> str:
    from kubelite.cli.top_table import node_lines

    client = sess.client
    if name:
        items = [client.get(metrics["nodes"], name)]
    else:
        items = client.list(metrics["nodes"], label_selector=args.selector or None).get("items") or []
    if not items:
        raise common.CommandError("error: metrics not available yet")
    nodes_r = sess.discovery.registry.lookup("", "v1", "nodes")
    if name:
        nodes = [client.get(nodes_r, name)]
    else:
        nodes = client.list(nodes_r, label_selector=args.selector or None).get("items") or []
    field = "capacity" if args.show_capacity else "allocatable"
    available = {n["metadata"]["name"]: (n.get("status") or {}).get(field) or {} for n in nodes}
    return node_lines(items, available, args.no_headers, args.sort_by)


def _top_pods(sess, metrics: dict, args, name: str) -> str:
    from kubelite.cli.top_table import pod_lines

    client = sess.client
    namespace = sess.namespace
    scope = None if args.all_namespaces else namespace
    if name:
        items = [client.get(metrics["pods"], name, scope)]
    else:
        items = client.list(metrics["pods"], scope, label_selector=args.selector or None,
                            field_selector=args.field_selector or None).get("items") or []
    if not items:
        _explain_no_metrics(sess, namespace, args)
        sys.stdout.flush()
        sys.stderr.write("No resources found\n" if args.all_namespaces else
                         f"No resources found in {namespace} namespace.\n")
    return pod_lines(items, args.containers, args.all_namespaces, args.no_headers, args.sort_by, args.sum)


METRICS_DELAY = 120.0  # seconds: kubectl expects a pod's metrics within two minutes of its creation


def _explain_no_metrics(sess, namespace: str, args) -> None:
    """kubectl's verdict on an empty answer: nothing to measure (returns), pods too old to be
    still waiting for metrics, or metrics not there yet. It looks in the current namespace,
    even with -A."""
    pods_r = sess.discovery.registry.lookup("", "v1", "pods")
    pods = sess.client.list(pods_r, namespace, label_selector=args.selector or None,
                            field_selector=args.field_selector or None).get("items") or []
    if not pods:
        return
    import time

    from kubelite.server.clock import parse_time

    for pod in pods:
        meta = pod.get("metadata") or {}
        created = parse_time(meta.get("creationTimestamp") or "")
        age = time.time() - created if created is not None else 0.0
        if age > METRICS_DELAY:
            raise common.CommandError(f"error: Metrics not available for pod {meta.get('namespace')}/"
                                      f"{meta.get('name')}, age: {go_duration(age)}")
    raise common.CommandError("error: metrics not available yet")


def go_duration(seconds: float) -> str:
    """A positive duration as Go's time.Duration prints it (`2m5.123456789s`, `1h0m0.5s`)."""
    nanos = round(seconds * 1e9)
    hours, rest = divmod(nanos, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    whole, frac = divmod(rest, 10**9)
    text = f"{whole}" + (f".{frac:09d}".rstrip("0") if frac else "") + "s"
    if hours:
        return f"{hours}h{minutes}m{text}"
    if minutes:
        return f"{minutes}m{text}"
    return text
