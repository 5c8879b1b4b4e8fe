"""Entry point of the `kubelite` command.

Each subcommand lives in its own module under kubelite.cli and is imported only when
invoked, so that `kubelite version` (and every command) starts fast.
"""
from __future__ import annotations

import sys

# subcommand name -> module under kubelite.cli that defines `register(subparsers)` and `run(args)`
COMMANDS: dict[str, str] = {
    "version": "kubelite.cli.version",
    "serve": "kubelite.cli.serve",
    "auth": "kubelite.cli.auth",
    "kustomize": "kubelite.cli.kustomize",
    "apply": "kubelite.cli.apply",
    "diff": "kubelite.cli.diff",
    "get": "kubelite.cli.get",
    "create": "kubelite.cli.create",
    "replace": "kubelite.cli.replace",
    "delete": "kubelite.cli.delete",
    "config": "kubelite.cli.config",
    "set": "kubelite.cli.set",
    "run": "kubelite.cli.run",
    "expose": "kubelite.cli.expose",
    "autoscale": "kubelite.cli.autoscale",
    "patch": "kubelite.cli.patch",
    "label": "kubelite.cli.label",
    "annotate": "kubelite.cli.annotate",
    "scale": "kubelite.cli.scale",
    "rollout": "kubelite.cli.rollout",
    "api-resources": "kubelite.cli.api_resources",
    "api-versions": "kubelite.cli.api_versions",
    "cluster-info": "kubelite.cli.cluster_info",
    "cordon": "kubelite.cli.cordon",
    "uncordon": "kubelite.cli.uncordon",
    "drain": "kubelite.cli.drain",
    "taint": "kubelite.cli.taint",
    "top": "kubelite.cli.top",
    "describe": "kubelite.cli.describe",
    "edit": "kubelite.cli.edit",
    "explain": "kubelite.cli.explain",
    "logs": "kubelite.cli.logs",
    "attach": "kubelite.cli.attach",
    "exec": "kubelite.cli.exec",
    "port-forward": "kubelite.cli.port_forward",
    "cp": "kubelite.cli.cp",
    "debug": "kubelite.cli.debug",
    "events": "kubelite.cli.events",
    "wait": "kubelite.cli.wait",
}


# Global flags kubectl accepts before the command name (`kubectl --kubeconfig F get ns`) that
# take a value; they are moved behind the command's own words (before any `--`), where each
# command parses them: right after the name they would split `create deployment NAME` or
# `set image ...` from their subcommand words.
_GLOBAL_VALUE_FLAGS = frozenset({"--kubeconfig", "--context", "--cluster", "--user", "-n", "--namespace", "-s",
                                 "--server", "--token", "--request-timeout", "--cache-dir", "-v", "--v"})


def _command_first(argv: list[str]) -> list[str]:
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-h", "--help"):
        i += 2 if argv[i] in _GLOBAL_VALUE_FLAGS else 1
    if 0 < i < len(argv):
        rest = argv[i + 1:]
        cut = rest.index("--") if "--" in rest else len(rest)
        return [argv[i]] + rest[:cut] + argv[:i] + rest[cut:]
    return argv


def main(argv: list[str] | None = None) -> int:
    argv = _command_first(list(sys.argv[1:] if argv is None else argv))
    if not argv or argv[0] in ("-h", "--help") or argv == ["help"]:
        _print_usage()
        return 0
    if argv[0] == "help":  # `kubelite help get` is `kubelite get -h`, as with kubectl
        argv = [*argv[1:], "-h"]
    if argv[0] == "options":
        from kubelite.cli.help import render_options

        sys.stdout.write(render_options())
        return 0
    name = argv[0]
    module_name = COMMANDS.get(name)
    if module_name is None:
        print(f'error: unknown command "{name}" for "kubelite"', file=sys.stderr)
        return 1
    import importlib

    module = importlib.import_module(module_name)
    from kubelite.godepth import allow_go_depth

    allow_go_depth()  # documents as deep as kubectl reads them (10,000 levels)
    try:
        return int(module.run(argv[1:]) or 0)
    except KeyboardInterrupt:
        return 130


def _print_usage() -> None:
    from kubelite.cli.help import render_top

    sys.stdout.write(render_top())

if __name__ == "__main__":
    raise SystemExit(main())
