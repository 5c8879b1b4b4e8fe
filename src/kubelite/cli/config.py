"""`kubelite config`: view and edit kubeconfig files, as kubectl config does.

view | get-contexts | current-context | use-context NAME | set-context [NAME | --current] ...
With no kubeconfig anywhere kubelite uses its embedded cluster, and `config view` shows the
empty configuration kubectl shows.
"""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Show the merged kubeconfig (secrets redacted), or only what the current context uses
  kubelite config view
  kubelite config view --minify --raw

  # Contexts
  kubelite config get-contexts
  kubelite config current-context
  kubelite config use-context kubelite

  # Make the current context default to another namespace
  kubelite config set-context --current --namespace=dev
"""

_REDACTED = {"certificate-authority-data": "DATA+OMITTED", "client-certificate-data": "DATA+OMITTED",
             "client-key-data": "DATA+OMITTED", "token": "REDACTED", "password": "REDACTED"}


def build_parser() -> common.Parser:
    from kubelite.cli import command_line

    p = common.parser("config", "Modify kubeconfig files.", EXAMPLES)
    p.add_argument("--kubeconfig", help="use this kubeconfig file")
    sub = p.add_subparsers(dest="action", metavar="SUBCOMMAND", parser_class=common.Parser)
    view = sub.add_parser("view", help="show the merged kubeconfig")
    view.add_argument("--raw", action="store_true", help="show secrets")
    view.add_argument("--minify", action="store_true", help="only what the current context uses")
    view.add_argument("--flatten", action="store_true", help="accepted; file references are kept")
    view.add_argument("-o", "--output", default="yaml", help="yaml|json|jsonpath=...")
    view.add_argument("--context")
    common.add_template_flags(view)
    get_contexts = sub.add_parser("get-contexts", help="list contexts")
    get_contexts.add_argument("names", nargs="*")
    get_contexts.add_argument("-o", "--output", default="", help="name")
    get_contexts.add_argument("--no-headers", action="store_true")
    sub.add_parser("current-context", help="print the current context")
    _add_editing_subcommands(sub)
    view.add_argument("--merge", default=None, help="merge every kubeconfig file (the default without --kubeconfig)")
    for each in sub.choices.values():
        if not any("--kubeconfig" in a.option_strings for a in each._actions):
            each.add_argument("--kubeconfig", dest="sub_kubeconfig", help="use this kubeconfig file")
        command_line.add_hidden_global_flags(each)  # kubectl's global flags are accepted after any command
    from kubelite.cli.help import install_tree

    return install_tree(p, "config")


def _add_editing_subcommands(sub) -> None:
    """The subcommands of config_edit: free positional words (their count is checked as kubectl does)."""
    def add(name: str, *flags, aliases=()) -> None:
        each = sub.add_parser(name, aliases=list(aliases))
        each.add_argument("names", nargs="*")
        for flag in flags:
            names, kw = flag if isinstance(flag, tuple) else ((flag,), {})
            each.add_argument(*names, **kw)

    add("set-cluster", "--server", "--tls-server-name", "--insecure-skip-tls-verify", "--certificate-authority",
        "--embed-certs", "--proxy-url")
    add("set-credentials", "--client-certificate", "--client-key", "--token", "--username", "--password",
        "--auth-provider", (("--auth-provider-arg",), {"action": "append", "default": []}), "--exec-command",
        "--exec-api-version", "--exec-interactive-mode", "--exec-provide-cluster-info",
        (("--exec-arg",), {"action": "append", "default": []}), (("--exec-env",), {"action": "append", "default": []}),
        "--embed-certs")
    add("set-context", (("--current",), {"action": "store_true"}), "--namespace", "--cluster",
        "--user")
    add("use-context", aliases=("use",))
    add("rename-context")
    add("delete-cluster")
    add("delete-context")
    add("delete-user")
    add("get-clusters")
    add("get-users")
    add("set", "--set-raw-bytes")
    add("unset")


def run(argv: list[str]) -> int:
    from kubelite.cli import config_edit

    p = build_parser()

    def body(args) -> int:
        args.kubeconfig = getattr(args, "sub_kubeconfig", None) or args.kubeconfig
        editing = config_edit.ACTIONS.get(args.action)
        if editing is not None:
            return editing(args, _subparser(p, args.action))
        action = {"view": _view, "get-contexts": _get_contexts, "current-context": _current_context}.get(args.action)
        if action is None:
            p.print_help()
            return 0
        return action(args)

    try:
        args = p.parse_args(config_edit.with_tristate_values(common._split_short_equals(argv)))
    except common.UsageError as err:
        common._write_err(str(err))
        return 1
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        return int(body(args) or 0)
    except Exception as err:  # noqa: BLE001
        common._write_err(common.error_message(err))
        return 1


def _subparser(p, name: str):
    import argparse

    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _load(args):
    from kubelite.client import kubeconfig

    try:
        return kubeconfig.load(args.kubeconfig)
    except kubeconfig.ConfigError as err:
        if str(err).startswith("error: stat "):  # kubectl config treats a missing file as empty
            return None
        raise


def _view(args) -> int:
    from kubelite.cli.config_edit import parse_bool
    from kubelite.client.kubeconfig import KubeConfig

    merge = parse_bool("merge", args.merge, "kubelite config view")
    if merge is False and not args.kubeconfig:
        raise common.CommandError("error: if merge==false a precise file must be specified")

    config = _load(args) or KubeConfig()
    doc = config.to_dict()
    if args.minify:
        current = args.context or config.current_context
        if not current or current not in config.contexts:
            raise common.CommandError("error: current-context must exist in order to minify")
        context = config.contexts[current]
        doc["contexts"] = [{"name": current, "context": dict(context)}]
        doc["clusters"] = [c for c in doc["clusters"] or [] if c["name"] == context.get("cluster")] or None
        doc["users"] = [u for u in doc["users"] or [] if u["name"] == context.get("user")] or None
        doc["current-context"] = current
    if not args.raw:
        for key, inner in (("clusters", "cluster"), ("users", "user")):
            for entry in doc[key] or []:
                entry[inner] = {k: (_REDACTED[k] if k in _REDACTED and v else v) for k, v in entry[inner].items()}
    output = common.output_of(args, ("go-template", "go-template-file", "json", "jsonpath", "jsonpath-file", "template",
                                         "templatefile", "yaml"))
    sys.stdout.write(common.render(output, doc))
    return 0


def _get_contexts(args) -> int:
    from kubelite.manifest.table import TabWriter

    config = _load(args)
    contexts = config.contexts if config else {}
    names = args.names or sorted(contexts)
    missing = [n for n in names if n not in contexts]
    if args.output == "name":
        sys.stdout.write("".join(f"{n}\n" for n in names if n in contexts))
    elif args.output:
        raise common.CommandError(f"error: output must be one of '' or 'name': {args.output}")
    else:
        writer = TabWriter()
        if not args.no_headers:
            writer.write("CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n")
        for name in names:
            if name not in contexts:
                continue
            ctx = contexts[name]
            star = "*" if config and name == config.current_context else ""
            writer.write(f"{star}\t{name}\t{ctx.get('cluster', '')}\t{ctx.get('user', '')}\t"
                         f"{ctx.get('namespace', '')}\n")
        writer.flush()
        sys.stdout.write(writer.getvalue())
    if missing:
        raise common.CommandError("error: context " + ", ".join(f'"{n}"' for n in missing) + " not found")
    return 0


def _current_context(args) -> int:
    config = _load(args)
    if not config or not config.current_context:
        raise common.CommandError("error: current-context is not set")
    print(config.current_context)
    return 0
