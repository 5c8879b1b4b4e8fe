"""`-h` in kubectl's layout, rendered from a command's Help record and its argparse parser.

The sections come in cobra's order: description, Aliases, Examples, Available Commands, Options,
Usage, and the footers. Options are the parser's own flags (minus the global ones `kubelite options`
lists), each as `    -x, --flag=default:` followed by a tab-indented description, with defaults shown
the way pflag prints them (`'text'`, `true`, `0`, `[]`).
"""
from __future__ import annotations

import argparse

from kubelite.record import Record, factory

GLOBAL_FLAGS = frozenset({
    "as", "as-group", "as-uid", "cache-dir", "certificate-authority", "client-certificate", "client-key",
    "cluster", "context", "disable-compression", "insecure-skip-tls-verify", "kubeconfig", "log-flush-frequency",
    "match-server-version", "namespace", "password", "profile", "profile-output", "request-timeout", "server",
    "tls-server-name", "token", "user", "username", "v", "vmodule", "warnings-as-errors",
})
FOOTER = 'Use "kubelite options" for a list of global command-line options (applies to all commands).\n'


class Help(Record):
    command: str                               # "create service nodeport"
    description: str                           # paragraphs, separated by blank lines
    usage: str                                 # after "kubelite ", e.g. "create service nodeport NAME [...]"
    examples: tuple = ()                       # ((comment, (command, ...)), ...) without the "kubelite "
    aliases: tuple = ()                        # ("deployment", "deploy")
    subcommands: tuple = ()                    # ((name, short description), ...)
    defaults: dict = factory(dict)             # flag -> default text where argparse's default differs
    docs: dict = factory(dict)                 # flag -> description specific to this command
    hidden: tuple = ()                             # accepted flags kubectl does not list for this command
    plain: tuple = ()                              # flags kubectl lists without their short form


def install(parser: argparse.ArgumentParser, meta: Help) -> argparse.ArgumentParser:
    """Make `-h` on `parser` print `meta` in kubectl's layout (argparse still exits 0 after it)."""
    parser.format_help = lambda: render(meta, parser)  # type: ignore[method-assign]
    return parser


def install_tree(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """`install` on `parser` and on each of its argparse subcommands that has a Help record."""
    from kubelite.cli.help_texts import HELP

    install(parser, HELP[command])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if f"{command} {name}" in HELP:
                    install(sub, HELP[f"{command} {name}"])
    return parser


def render(meta: Help, parser: argparse.ArgumentParser | None = None) -> str:
    parts = [meta.description.rstrip("\n") + "\n"]
    if meta.aliases:
        parts.append("Aliases:\n" + ", ".join(meta.aliases) + "\n")
    if meta.examples:
        parts.append("Examples:\n" + _examples(meta.examples))
    if meta.subcommands:
        parts.append("Available Commands:\n" + _table(meta.subcommands))
    if parser is not None:
        options = _options(meta, parser)
        if options:
            parts.append("Options:\n" + options)
    parts.append(f"Usage:\n  kubelite {meta.usage}\n")
    footer = FOOTER
    if meta.subcommands:
        footer = f'Use "kubelite {meta.command} <command> --help" for more information about a given command.\n' \
            + FOOTER
    parts.append(footer)
    return "\n".join(parts)


def _examples(examples) -> str:
    blocks = []
    for comment, commands in examples:
        lines = [f"  # {comment}"] + [f"  kubelite {c}" for c in commands]
        blocks.append("\n".join(lines) + "\n")
    return "  \n".join(blocks)  # cobra keeps the two-space indent on the blank lines between examples


def _table(rows) -> str:
    width = max(len(name) for name, _ in rows) + 3
    return "".join(f"  {name.ljust(width)}{short}\n" for name, short in rows)


def _options(meta: Help, parser: argparse.ArgumentParser) -> str:
    from kubelite.cli.help_texts import FLAG_DOCS

    entries = []
    for action in _local_actions(parser):
        long = next((s for s in action.option_strings if s.startswith("--")), None)
        if long is None:
            continue
        name = long[2:]
        if name in meta.hidden:
            continue
        short = next((s for s in action.option_strings if len(s) == 2 and s != long), None)
        if name in meta.plain:
            short = None
        default = meta.defaults.get(name, _go_default(action))
        doc = meta.docs.get(name) or FLAG_DOCS.get(name) or (action.help or "")
        flag = (f"{short}, " if short else "") + f"{long}={default}"
        entries.append((name, f"    {flag}:\n\t{doc}\n"))
    entries.sort()
    return "\n".join(text for _, text in entries)


def _local_actions(parser: argparse.ArgumentParser):
    """The parser's flags that are the command's own: not help, not hidden, not `kubelite options` ones."""
    connection = {id(a) for g in parser._action_groups if g.title == "connection" for a in g._group_actions}
    seen = set()
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        if action.help == argparse.SUPPRESS or id(action) in connection or id(action) in seen:
            continue
        long = next((s for s in action.option_strings if s.startswith("--")), "")
        if long[2:] in GLOBAL_FLAGS and long[2:] not in _LOCAL_EXCEPTIONS.get(parser.prog, ()):
            continue
        seen.add(id(action))
        yield action


# commands whose own flag shares a global flag's name (kubectl create rolebinding --user=[])
_LOCAL_EXCEPTIONS = {
    "kubelite create rolebinding": ("user",), "kubelite create clusterrolebinding": ("user",),
    "kubelite set subject": ("user",),
    "kubelite debug": ("profile",),
    "kubelite config set-context": ("cluster", "namespace", "user"),
    "kubelite config set-cluster": ("certificate-authority", "insecure-skip-tls-verify", "server", "tls-server-name"),
    "kubelite config set-credentials": ("client-certificate", "client-key", "password", "token", "username"),
}


def _go_default(action: argparse.Action) -> str:
    """A default as pflag prints it: strings quoted, booleans and numbers bare, slices and maps `[]`."""
    default = action.default
    if isinstance(action, (argparse._StoreTrueAction,)):
        return "true" if default else "false"
    if isinstance(action, argparse._StoreFalseAction):
        return "false" if default else "true"
    if isinstance(default, bool):
        return "true" if default else "false"
    if default in ("true", "false"):  # boolean flags kubelite parses as text (--overwrite=false)
        return default
    if isinstance(default, (int, float)):
        return str(default)
    if isinstance(default, (list, tuple)):
        return "[" + ",".join(str(v) for v in default) + "]"
    if isinstance(default, dict):
        return ""  # pflag prints an empty string map as nothing
    if isinstance(action, argparse._AppendAction) and default is None:
        return "[]"
    return "'" + ("" if default is None else str(default)) + "'"


def installed(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """`install` with the Help record of `command`, looked up only when the help is printed: only -h
    reads the texts, and importing them is a few ms of every command's start."""
    def format_help() -> str:
        from kubelite.cli.help_texts import HELP

        return render(HELP[command], parser)

    parser.format_help = format_help  # type: ignore[method-assign]
    return parser


def render_top() -> str:
    """`kubelite -h`: kubectl's command groups, one padding for all of them as cobra pads them."""
    from kubelite.cli.help_texts_manage import TOP_DESCRIPTION, TOP_GROUPS

    width = max(len(name) for _, rows in TOP_GROUPS for name, _ in rows) + 3
    parts = [TOP_DESCRIPTION + "\n"]
    for title, rows in TOP_GROUPS:
        if title == "Other Commands":  # as kubectl: the plugins on PATH come before the other commands
            parts.extend(_plugin_group(width))
        parts.append(f"{title}:\n" + "".join(f"  {name.ljust(width)}{short}\n" for name, short in rows))
    parts.append("Usage:\n  kubelite [flags] [options]\n")
    parts.append('Use "kubelite <command> --help" for more information about a given command.\n' + FOOTER)
    return "\n".join(parts)


def _plugin_group(width: int) -> list[str]:
    from kubelite.cli.plugins import top_level

    names = top_level()
    if not names:
        return []
    return ["Subcommands provided by plugins:\n" +
            "".join(f"  {name.ljust(width)}Run the plugin {name}\n" for name in names)]


def render_options() -> str:
    """`kubelite options`: the flags every command accepts, in the layout of `-h`'s Options."""
    from kubelite.cli.common import add_connection_flags

    parser = argparse.ArgumentParser(add_help=False)
    add_connection_flags(parser)
    parser.add_argument("-n", "--namespace", help="The namespace to work in, instead of the kubeconfig context's.")
    entries = []
    for action in parser._actions:
        long = next(s for s in action.option_strings if s.startswith("--"))
        short = next((s for s in action.option_strings if len(s) == 2), None)
        doc = _OPTION_DOCS.get(long[2:], action.help or "")
        entries.append((long, f"    {short + ', ' if short else ''}{long}={_go_default(action)}:\n\t{doc}\n"))
    return "The following options can be passed to any command:\n\n" + "\n".join(t for _, t in sorted(entries))


_OPTION_DOCS = {
    "kubeconfig": "The kubeconfig file to use (instead of $KUBECONFIG or ~/.kube/config).",
    "context": "The kubeconfig context to use.",
    "cluster": "The kubeconfig cluster to use.",
    "user": "The kubeconfig user to use.",
    "server": "The address and port of the Kubernetes API server.",
    "token": "A bearer token to authenticate to the API server with.",
    "insecure-skip-tls-verify": "Do not check the server's certificate (insecure).",
    "request-timeout": "How long to wait for one request before giving up (such as 1s, 2m); 0 waits forever.",
    "cache-dir": "Accepted as kubectl accepts it; kubelite keeps its cache under $KUBELITE_HOME.",
    "v": "How much to log: 6 shows the requests, 8 their bodies.",
}
