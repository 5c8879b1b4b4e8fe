"""`kubelite kustomize DIR`: print the built objects as `kubectl kustomize` does.

A failed build is reported as kubectl reports it: one klog error line (its
structured `"command failed" err=...` form) and exit code 1.
"""
from __future__ import annotations

import argparse
import sys


def klog_command_failed(message: str) -> str:
    """klog's text for `"command failed" err=<message>`: a Go-quoted string, or for a
    message spanning lines the `=<` block with tab-indented lines and ` >` closing."""
    if "\n" not in message:
        from kubelite.manifest.jsonpath import go_quote

        return f'"command failed" err={go_quote(message)}'
    lines = message.split("\n")
    if lines[-1] == "":
        lines.pop()  # klog writes a final line break only once
    return '"command failed" err=<\n' + "".join(f"\t{line}\n" for line in lines) + " >"


def _klog_header() -> str:
    import datetime
    import os

    now = datetime.datetime.now()
    return f"E{now:%m%d %H:%M:%S}.{now.microsecond:06d} {os.getpid():>7} run.go:72] "


_GLOBAL_FLAGS = (("--kubeconfig",), ("--context",), ("--cluster",), ("--user",), ("-n", "--namespace"),
                 ("-s", "--server"), ("--token",), ("--request-timeout",), ("--cache-dir",), ("-v", "--v"))


def _warn(line: str) -> None:
    """Kustomize's deprecation lines go to stderr as each kustomization file is read."""
    sys.stderr.write(line + "\n")


def run(argv: list[str]) -> int:
    from kubelite.cli import common

    parser = common.Parser(prog="kubelite kustomize")  # flag errors worded and placed as kubectl's
    parser.add_argument("dir", nargs="?", default=".")
    parser.add_argument("--load-restrictor", default="LoadRestrictionsRootOnly",
                        choices=["LoadRestrictionsRootOnly", "LoadRestrictionsNone"])
    parser.add_argument("--reorder", default="", choices=["", "legacy", "none"])
    # these only configure KRM functions run by alpha plugins, which kubelite does not run: accepted, unused
    for flag, kind in (("--enable-alpha-plugins", "bool"), ("--as-current-user", "bool"), ("--network", "bool"),
                       ("--network-name", "bridge"), ("--mount", "list"), ("--env", "list")):
        short = ("-e",) if flag == "--env" else ()
        if kind == "bool":
            parser.add_argument(*short, flag, nargs="?", const="true", default=False)
        elif kind == "list":
            parser.add_argument(*short, flag, action="append", default=[])
        else:
            parser.add_argument(flag, default=kind)
    # kubectl's global flags are accepted everywhere (`kubectl --kubeconfig F kustomize DIR`);
    # a build never talks to a cluster, so they are read and ignored
    for flags in _GLOBAL_FLAGS:
        parser.add_argument(*flags, help=argparse.SUPPRESS)
    from kubelite.cli.help import installed

    return common.run(installed(parser, "kustomize"), argv, _build)


def _build(args) -> int:
    from kubelite.kustomize import KustomizeError, build, render

    try:
        objects = build(args.dir, args.load_restrictor, args.reorder, warn=_warn)
    except KustomizeError as exc:
        print(_klog_header() + klog_command_failed(str(exc)), file=sys.stderr)
        return 1
    sys.stdout.write(render(objects))
    return 0
