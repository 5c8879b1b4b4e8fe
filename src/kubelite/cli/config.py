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
    import argparse

    from kubelite.cli import command_line

    p = common.parser("config", "Modify kubeconfig files.", EXAMPLES)
    p.add_argument("--kubeconfig", help="use this kubeconfig file")
    sub = p.add_subparsers(dest="action", metavar="SUBCOMMAND", parser_class=common.Parser)
    view = sub.add_parser("view", help="show the merged kubeconfig")
    view.add_argument("names", nargs="*", help=argparse.SUPPRESS)  # refused, as kubectl does
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
    sub.add_parser("current-context", help="print the current context").add_argument(
        "names", nargs="*", help=argparse.SUPPRESS)  # ignored, as kubectl does
    _add_editing_subcommands(sub)
    view.add_argument("--merge", nargs="?", const="true", default=None, help="merge every kubeconfig file (the default without --kubeconfig)")
    for each in sub.choices.values():
        if not any("--kubeconfig" in a.option_strings for a in each._actions):
            each.add_argument("--kubeconfig", dest="sub_kubeconfig", help="use this kubeconfig file")
        command_line.add_hidden_global_flags(each)  # kubectl's global flags are accepted after any command
    from kubelite.cli.help import install_tree

    return install_tree(p, "config")


def _add_editing_subcommands(sub) -> None:
    """The subcommands of config_edit: free positional words (their count is checked as kubectl does)."""
    from kubelite.cli import config_edit

    def add(name: str, *flags, aliases=()) -> None:
        each = sub.add_parser(name, aliases=list(aliases))
        each.add_argument("names", nargs="*")
        for flag in flags:
            names, kw = flag if isinstance(flag, tuple) else ((flag,), {})
            if names[0] in config_edit.TRISTATE:  # pflag's optional-value boolean: bare means true
                kw = {"nargs": "?", "const": "true", **kw}
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
        args = _parse(p, argv)
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


def _parse(p, argv: list[str]):
    """argv as pflag reads it, with the parsing every other command uses (common.parse) on the
    subcommand named first (command_line.find put it there): flags anywhere, `--flag=true|false` for
    every boolean, optional-value booleans (`--embed-certs`, `--merge`) never taking the next word,
    and `--` ending the flags."""
    if not argv or argv[0] not in _subparser(p, None).choices:
        return p.parse_args(argv)  # config's own help (the command line runs the bare group itself)
    args = common.parse(_subparser(p, argv[0]), argv[1:])
    args.action, args.kubeconfig = argv[0], None
    return args


def _subparser(p, name: str | None):
    import argparse

    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action if name is None else action.choices[name]
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

    if args.names:
        raise common.UsageError(f"error: unexpected arguments: [{' '.join(args.names)}]\n"
                                "See 'kubelite config view -h' for help and examples")
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
    if args.flatten:
        _flatten(config, doc)
    elif not args.raw:
        for key, inner in (("clusters", "cluster"), ("users", "user")):
            for entry in doc[key] or []:
                entry[inner] = {k: (_REDACTED[k] if k in _REDACTED and v else v) for k, v in entry[inner].items()}
    output = common.output_of(args)  # kubectl's generic printer flags (-o name prints config/<unknown>)
    sys.stdout.write(common.render(output, _typed(doc)))
    return 0


# clientcmd/api/v1's structs: each field in declaration order (kubectl's -o json keeps it), with
# True when Go leaves it out empty (omitempty), False when it prints null/""/false.
_EXTENSIONS = ("extensions", True, "extensions")
_STRUCTS = {
    "config": (("kind", True, None), ("apiVersion", True, None), ("preferences", False, "preferences"),
               ("clusters", False, ["named", "cluster"]), ("users", False, ["named", "user"]),
               ("contexts", False, ["named", "context"]), ("current-context", False, None), _EXTENSIONS),
    "preferences": (("colors", True, None), _EXTENSIONS),
    "cluster": (("server", False, None), ("tls-server-name", True, None), ("insecure-skip-tls-verify", True, None),
                ("certificate-authority", True, None), ("certificate-authority-data", True, None),
                ("proxy-url", True, None), ("disable-compression", True, None), _EXTENSIONS),
    "context": (("cluster", False, None), ("user", False, None), ("namespace", True, None), _EXTENSIONS),
    "user": (("client-certificate", True, None), ("client-certificate-data", True, None),
             ("client-key", True, None), ("client-key-data", True, None), ("token", True, None),
             ("tokenFile", True, None), ("as", True, None), ("as-uid", True, None), ("as-groups", True, None),
             ("as-user-extra", True, None), ("username", True, None), ("password", True, None),
             ("auth-provider", True, "auth-provider"), ("exec", True, "exec"), _EXTENSIONS),
    "auth-provider": (("name", False, None), ("config", False, None)),
    "exec": (("command", False, None), ("args", False, None), ("env", False, ["env"]), ("apiVersion", True, None),
             ("installHint", True, None), ("provideClusterInfo", False, None), ("interactiveMode", True, None)),
    "env": (("name", False, None), ("value", False, None)),
}
_ZERO = {"preferences": {}, "cluster": "", "user": "", "server": "", "current-context": "", "name": "", "value": "",
         "command": "", "provideClusterInfo": False}


def _typed(doc: dict) -> dict:
    """The merged config as kubectl holds it: decoded into clientcmd's types and encoded again, so
    unknown fields are gone, empty ones follow Go's omitempty, extensions (a map) come sorted by
    name, an exec plugin of v1beta1/v1alpha1 defaults to interactiveMode IfAvailable, and the keys
    stand in the structs' order (what -o json shows; -o yaml sorts them)."""
    from kubelite.manifest.jsonfmt import GoStruct

    def struct(value, name: str):
        if not isinstance(value, dict):
            value = {}
        out = GoStruct()
        for key, omit, inner in _STRUCTS[name]:
            item = value.get(key)
            if key == "extensions":
                item = sorted((e for e in item or () if isinstance(e, dict)), key=lambda e: str(e.get("name")))
                item = [GoStruct(name=e.get("name", ""), extension=e.get("extension")) for e in item] or None
            elif isinstance(inner, str) and item is not None:
                item = struct(item, inner)
            elif isinstance(inner, list) and item is not None:
                item = [named(e, inner[1]) if inner[0] == "named" else struct(e, inner[0]) for e in item]
            if item is None or (omit and item in ("", False, [], {})):
                if omit:
                    continue
                item = _ZERO.get(key) if key in _ZERO else None
            out[key] = item
        if name == "exec" and not out.get("interactiveMode") and \
                out.get("apiVersion") in ("client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1alpha1"):
            out["interactiveMode"] = "IfAvailable"
        return out

    def named(entry, inner: str) -> dict:
        return GoStruct({"name": entry.get("name", ""), inner: struct(entry.get(inner), inner)})

    return struct(doc, "config")


_FLATTENED = {"cluster": (("certificate-authority", "certificate-authority-data"),),
              "user": (("client-certificate", "client-certificate-data"), ("client-key", "client-key-data"))}


def _flatten(config, doc: dict) -> None:
    """kubectl's FlattenConfig: each file a cluster or user names is read into its `-data` field (the
    path resolved against the kubeconfig that names it); secrets are then shown as they are."""
    import base64
    import os

    for key, inner in (("users", "user"), ("clusters", "cluster")):  # kubectl's order: users first
        for entry in doc[key] or []:
            body = entry[inner]
            for path_key, data_key in _FLATTENED[inner]:
                path = body.get(path_key)
                if not path:
                    continue
                if body.get(data_key):
                    raise common.CommandError("error: cannot have values for both path and contents")
                origin = config.origin.get((inner, entry["name"]))
                base = os.path.abspath(os.path.dirname(str(origin))) if origin else os.getcwd()
                resolved = path if os.path.isabs(path) else os.path.join(base, path)
                try:
                    with open(resolved, "rb") as f:
                        data = f.read()
                except OSError as err:
                    raise common.CommandError(f"error: open {resolved}: {(err.strerror or str(err)).lower()}") from None
                del body[path_key]
                body[data_key] = base64.b64encode(data).decode()


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
    # kubectl's aggregate: one error alone reads `error: ...`, several one a line without the prefix
    return common.report([common.CommandError(f"context {n} not found") for n in missing])


def _current_context(args) -> int:
    config = _load(args)
    if not config or not config.current_context:
        raise common.CommandError("error: current-context is not set")
    print(config.current_context)
    return 0
