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
    p = common.parser("config", "Modify kubeconfig files.", EXAMPLES)
    p.add_argument("--kubeconfig", help="use this kubeconfig file")
    sub = p.add_subparsers(dest="action", metavar="SUBCOMMAND", parser_class=common.Parser)
    view = sub.add_parser("view", help="show the merged kubeconfig")
    view.add_argument("--raw", action="store_true", help="show secrets")
    view.add_argument("--minify", action="store_true", help="only what the current context uses")
    view.add_argument("--flatten", action="store_true", help="accepted; file references are kept")
    view.add_argument("-o", "--output", default="yaml", help="yaml|json|jsonpath=...")
    view.add_argument("--context")
    get_contexts = sub.add_parser("get-contexts", help="list contexts")
    get_contexts.add_argument("names", nargs="*")
    get_contexts.add_argument("-o", "--output", default="", help="name")
    get_contexts.add_argument("--no-headers", action="store_true")
    sub.add_parser("current-context", help="print the current context")
    use = sub.add_parser("use-context", aliases=["use"], help="set the current context")
    use.add_argument("name")
    set_context = sub.add_parser("set-context", help="create or change a context")
    set_context.add_argument("name", nargs="?")
    set_context.add_argument("--current", action="store_true", help="change the current context")
    set_context.add_argument("--namespace", "-n")
    set_context.add_argument("--cluster")
    set_context.add_argument("--user")
    for each in (view, get_contexts, use, set_context, sub.choices["current-context"]):
        each.add_argument("--kubeconfig", dest="sub_kubeconfig", help="use this kubeconfig file")
    from kubelite.cli.help import install_tree

    return install_tree(p, "config")


def run(argv: list[str]) -> int:
    p = build_parser()

    def body(args) -> int:
        args.kubeconfig = getattr(args, "sub_kubeconfig", None) or args.kubeconfig
        action = {"view": _view, "get-contexts": _get_contexts, "current-context": _current_context,
                  "use-context": _use_context, "use": _use_context, "set-context": _set_context}.get(args.action)
        if action is None:
            p.print_help()
            return 0
        return action(args)

    try:
        args = p.parse_args(common._split_short_equals(argv))
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


def _load(args):
    from kubelite.client import kubeconfig

    try:
        return kubeconfig.load(args.kubeconfig)
    except kubeconfig.ConfigError as err:
        if str(err).startswith("error: stat "):  # kubectl config treats a missing file as empty
            return None
        raise


def _view(args) -> int:
    from kubelite.client.kubeconfig import KubeConfig

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
    output = common.parse_output(args.output, ("json", "jsonpath", "jsonpath-file", "yaml"))
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


def _use_context(args) -> int:
    from kubelite.client import kubeconfig

    config = _load(args)
    if not config or args.name not in config.contexts:
        raise common.CommandError(f'error: no context exists with the name: "{args.name}"')
    path = kubeconfig.target_file(config, args.kubeconfig, "current-context")

    def change(doc: dict) -> None:
        doc["current-context"] = args.name

    kubeconfig.edit_file(path, change)
    print(f'Switched to context "{args.name}".')
    return 0


def _set_context(args) -> int:
    from kubelite.client import kubeconfig

    config = _load(args)
    if args.current:
        if args.name:
            raise common.CommandError("error: you cannot specify both a context name and --current")
        if not config or not config.current_context:
            raise common.CommandError("error: no current context is set")
        name = config.current_context
    elif not args.name:
        raise common.CommandError("error: you must specify a non-empty context name or --current")
    else:
        name = args.name
    exists = bool(config and name in config.contexts)
    path = kubeconfig.target_file(config, args.kubeconfig, "context", name)

    def change(doc: dict) -> None:
        entry = kubeconfig.named(doc["contexts"], name)
        if entry is None:
            entry = {"name": name, "context": dict(config.contexts.get(name, {})) if config else {}}
            doc["contexts"].append(entry)
        context = entry.setdefault("context", {}) or {}
        entry["context"] = context
        for key, value in (("namespace", args.namespace), ("cluster", args.cluster), ("user", args.user)):
            if value is not None:
                if value:
                    context[key] = value
                else:
                    context.pop(key, None)

    kubeconfig.edit_file(path, change)
    print(f'Context "{name}" {"modified" if exists else "created"}.')
    return 0
