"""`kubelite top node|pod`: resource usage from the metrics API (metrics.k8s.io).

kubelite's cluster does not serve that API yet, so against it (and any cluster without a metrics
server) the commands end with kubectl's own error, `error: Metrics API not available`.
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
    from kubelite.client.errors import ResourceTypeNotFound

    sess = common.session(args)
    try:
        sess.discovery.resolve("nodes.metrics.k8s.io")
    except ResourceTypeNotFound:
        pass
    # Reading the metrics objects is not implemented: a server that has them is answered alike.
    raise common.CommandError(NOT_AVAILABLE)
