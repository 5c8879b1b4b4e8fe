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
    "plugin": "kubelite.cli.plugins",
    "certificate": "kubelite.cli.certificate",
    "completion": "kubelite.cli.completion",
}


def main(argv: list[str] | None = None) -> int:
    if argv is not None:  # a caller's main([...])
        return _main(list(argv), own_process=False)
    try:  # the script or python -m kubelite: the process ends when this returns
        code = _main(sys.argv[1:], own_process=True)
    finally:
        from kubelite import gcpace

        gcpace.none_at_exit()
    from kubelite import quickexit

    quickexit.end(code)  # returns only when the interpreter's own exit has something to report
    return code


def _main(argv: list[str], own_process: bool) -> int:
    from kubelite.cli import command_line

    if argv and argv[0] in ("__complete", "__completeNoDesc"):  # what the completion scripts ask
        from kubelite.cli.completion import run_complete

        return run_complete(argv[1:], descriptions=argv[0] == "__complete")
    path, rest = command_line.find(argv)  # as cobra finds it: flags may stand anywhere
    if own_process and path[:1] != ("serve",):  # a server keeps the collector's default pace
        _collect_later()
    if not path:
        return _root(argv, rest)
    if path[0] == "help":  # `kubelite help get` is `kubelite get -h`, as with kubectl
        return _help(rest)
    if path[0] == "options":
        from kubelite.cli.help import render_options

        sys.stdout.write(render_options())
        return 0
    if path not in command_line.OWN_RUNS and command_line.has_children(path):  # OWN_RUNS first: no help texts
        return command_line.run_group(path, rest)
    if path == ("create",) and rest and not rest[0].startswith("-"):  # `create foo`: maybe kubectl-create-foo
        from kubelite.cli import plugins

        code = plugins.run_if_found(argv, len(argv) - len(rest) + 1)
        if code is not None:
            return code
    import importlib

    module = importlib.import_module(COMMANDS[path[0]])
    from kubelite.godepth import allow_go_depth

    allow_go_depth()  # documents as deep as kubectl reads them (10,000 levels)
    try:
        return int(module.run([*path[1:], *rest]) or 0)
    except KeyboardInterrupt:
        return 130


def _collect_later() -> None:
    """The cyclic collector waits for gcpace.YOUNG new objects instead of 700. A command's start
    creates ~26,000 that live until it ends (modules, classes, functions; on the embedded cluster
    its registry and handlers) and almost no cycles to free: with the default, `get ns` on the
    embedded cluster collected 37 times (~5 ms, a tenth of the command) and 74 times (~60 ms
    under load) when the controllers woke, for a few hundred objects in all. A short command now
    ends before the first collection; a long one collects as before, in fewer, larger passes."""
    from kubelite import gcpace

    gcpace.wait_longer()


def _root(argv: list[str], rest: list[str]) -> int:
    """No command found: an unknown word is a plugin's name or an error; else the root's flags and help."""
    from kubelite.cli import command_line

    word = command_line.unknown_root_word(rest)
    if word is None:
        return command_line.run_root(rest, _print_usage)
    from kubelite.cli import plugins

    code = plugins.run_if_found(argv, 1)
    if code is not None:
        return code
    sys.stderr.write(command_line.unknown_command_message(word))
    return 1


def _help(args: list[str]) -> int:
    """cobra's help command: the help of the command the words name, or the root's usage."""
    from kubelite.cli import command_line

    path, rest = command_line.find(args)
    if not path and command_line.unknown_root_word(rest) is not None:
        words = command_line.strip_flags(args, command_line.ROOT_SWITCHES)
        sys.stdout.flush()
        sys.stderr.write("Unknown help topic [" + " ".join(f"`{w}`" for w in words) + "]\n")
        from kubelite.cli.help import render_top

        sys.stderr.write(render_top())
        return 0
    return main([*path, "-h"]) if path else main(["-h"])


def _print_usage() -> None:
    from kubelite.cli.help import render_top

    sys.stdout.write(render_top())

if __name__ == "__main__":
    raise SystemExit(main())
