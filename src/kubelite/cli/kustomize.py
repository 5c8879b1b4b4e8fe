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
    parser.add_argument("dir", nargs="*")
    parser.add_argument("--load-restrictor", default="LoadRestrictionsRootOnly")
    parser.add_argument("--reorder", default=None, action=_Deprecated)
    parser.add_argument("-o", "--output", default="", help="write to this file, or one file per object in this directory")
    parser.add_argument("--enable-helm", nargs="?", const="true", default="false", type=_parse_bool("enable-helm"))
    parser.add_argument("--helm-command", default="helm")
    parser.add_argument("--helm-api-versions", action=_StringSlice, default=[])
    parser.add_argument("--helm-kube-version", default="")
    parser.add_argument("--helm-debug", nargs="?", const="true", default="false", type=_parse_bool("helm-debug"))
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


def _parse_bool(flag: str):
    def parse(text: str) -> bool:
        from kubelite.cli.config_edit import parse_bool

        return bool(parse_bool(flag, text, "kubelite kustomize"))
    return parse


class _Deprecated(argparse.Action):
    """pflag's deprecated flag: each time it is set, its notice on stderr."""

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stderr.write("Flag --reorder has been deprecated, use the new 'sortOptions' field in kustomization.yaml "
                         "instead.\n")
        setattr(namespace, self.dest, values)


class _StringSlice(argparse.Action):
    """pflag's string slice: repeatable, each value split at commas."""

    def __call__(self, parser, namespace, values, option_string=None):
        from kubelite.cli.create_generators import _csv

        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), *_csv(values)])


def _build(args) -> int:
    from kubelite.kustomize import KustomizeError, build, render
    from kubelite.kustomize.helm import HelmConfig

    helm = HelmConfig(enabled=args.enable_helm, command=args.helm_command, api_versions=tuple(args.helm_api_versions),
                      kube_version=args.helm_kube_version, debug=args.helm_debug)
    try:
        _validate(args)
        objects = build((args.dir or ["."])[0], args.load_restrictor or "LoadRestrictionsRootOnly", args.reorder or "",
                        warn=_warn, helm=helm)
        if args.output:
            _write_output(args.output, objects)
            return 0
    except KustomizeError as exc:
        print(_klog_header() + klog_command_failed(str(exc)), file=sys.stderr)
        return 1
    sys.stdout.write(render(objects))
    return 0


def _validate(args) -> None:
    """kustomize build's Validate: one path, then the two flags with a fixed set of values."""
    from kubelite.kustomize import KustomizeError

    if len(args.dir) > 1:
        raise KustomizeError("specify one path to kustomization.yaml")
    for flag, value, legal in (("load-restrictor", args.load_restrictor, ("LoadRestrictionsRootOnly", "LoadRestrictionsNone")),
                               ("reorder", args.reorder, ("legacy", "none"))):
        if value not in (None, *legal) and (value or flag == "reorder"):  # an empty restrictor is the default
            raise KustomizeError(f"illegal flag value --{flag} {value}; legal values: [{' '.join(legal)}]")


def _write_output(path: str, objects: list[dict]) -> None:
    """kustomize build -o: the whole stream into a file, or into an existing directory one file per
    object named group_version_kind_name.yaml (lowercase), prefixed with its namespace (`default`
    for none) when the namespaced objects stand in more than one; cluster-scoped ones never are."""
    import os

    from kubelite.kustomize import KustomizeError, render
    from kubelite.kustomize.resource import CLUSTER_SCOPED

    files: list[tuple[str, str]] = []
    if os.path.isdir(path):
        by_namespace: dict[str, list[dict]] = {}
        cluster: list[dict] = []
        for obj in objects:
            group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            name = "_".join(p for p in (group, version, str(obj.get("kind") or "")) if p).lower() + \
                "_" + str(meta.get("name") or "").lower() + ".yaml"
            if (group, obj.get("kind")) in CLUSTER_SCOPED:
                cluster.append((name, obj))
            else:
                by_namespace.setdefault(str(meta.get("namespace") or "default"), []).append((name, obj))
        for namespace, entries in by_namespace.items():
            prefix = namespace.lower() + "_" if len(by_namespace) > 1 else ""
            files += [(os.path.join(path, prefix + name), render([obj])) for name, obj in entries]
        files += [(os.path.join(path, name), render([obj])) for name, obj in cluster]
    else:
        files.append((path, render(objects)))
    for name, text in files:
        try:
            with open(name, "w") as f:
                f.write(text)
        except OSError as err:
            raise KustomizeError(f"open {name}: {(err.strerror or str(err)).lower()}") from None
