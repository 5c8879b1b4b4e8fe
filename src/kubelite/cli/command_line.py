"""Which command an argv names, found the way cobra finds it in kubectl's command tree.

cobra walks down the tree word by word: at each command it drops the flags (a flag written
`--name value` or `-x value` takes the next word unless the command knows it as a flag with
an optional value, such as a boolean; a flag it does not know takes the next word too), and the
first word left names the child to descend into. That word is removed from argv wherever it
stands, so a subcommand's flags may come before its name (`create -n ns configmap c`) and a
parent's after it. `--` ends the search. What is left of argv goes, flags interspersed, to the
command found; the root and the commands that only group others (`set`, `rollout`, ...)
are run here, as cobra's default runs them.
"""
from __future__ import annotations

import sys

# Root commands that have subcommands (tests check this against the help records).
GROUPS = frozenset({"apply", "auth", "certificate", "cluster-info", "config", "create", "plugin", "rollout", "set",
                    "top"})

# Groups with a run of their own (`create -f`, `apply -f`, `cluster-info`): the module's parser
# says which of their flags take no value. The other groups only hold subcommands.
OWN_RUNS = {
    ("create",): ("kubelite.cli.create", "build_parser"),
    ("apply",): ("kubelite.cli.apply", "build_parser"),
    ("cluster-info",): ("kubelite.cli.cluster_info", "build_parser"),
    ("certificate",): ("kubelite.cli.certificate", "build_parser"),  # its help for anything but a subcommand
}

# kubectl's global (root persistent) flags that take no value; every other global one does.
ROOT_SWITCHES = frozenset({"--disable-compression", "--insecure-skip-tls-verify", "--match-server-version",
                           "--warnings-as-errors"})

# Commands of the root that are not modules of their own.
BUILTIN_COMMANDS = ("help", "options")

# The subcommands under each group path, each as its name and then its aliases. The search reads
# them here rather than from the help records, whose import would cost every `create ...`,
# `config ...` or `rollout ...` a few ms (a test checks the two agree).
SUBCOMMANDS = {
    "apply": ("view-last-applied", "set-last-applied", "edit-last-applied"),
    "auth": ("can-i", "reconcile", "whoami"),
    "certificate": ("approve", "deny"),
    "cluster-info": ("dump",),
    "config": ("view", "get-contexts", "current-context", "use-context use", "set", "unset", "set-cluster",
               "set-credentials", "delete-cluster", "delete-context", "delete-user", "get-clusters", "get-users",
               "rename-context", "set-context"),
    "create": ("deployment deploy", "token", "service svc", "configmap cm", "secret", "namespace ns",
               "serviceaccount sa", "job", "cronjob cj", "role", "clusterrole", "rolebinding", "clusterrolebinding",
               "quota resourcequota", "poddisruptionbudget pdb", "priorityclass pc", "ingress ing"),
    "create secret": ("generic", "tls", "docker-registry"),
    "create service": ("clusterip", "nodeport", "loadbalancer", "externalname"),
    "plugin": ("list",),
    "rollout": ("status", "history", "undo", "pause", "resume", "restart"),
    "set": ("image", "env", "resources", "selector", "serviceaccount sa", "subject"),
    "top": ("node nodes no", "pod pods po"),
}

# Where a group prints its help when run without a subcommand (kubectl: stderr, but rollout's stdout).
_HELP_ON_STDOUT = frozenset({("rollout",)})


# -- the tree -------------------------------------------------------------------------------------


def children(path: tuple[str, ...]) -> dict[str, str]:
    """Each name and alias of a subcommand of `path`, mapped to the subcommand's name."""
    if not path:
        from kubelite.cli.main import COMMANDS

        return {name: name for name in (*COMMANDS, *BUILTIN_COMMANDS)}
    if path[0] not in GROUPS:
        return {}
    found: dict[str, str] = {}
    for spellings in SUBCOMMANDS.get(" ".join(path), ()):
        name, *_ = words = spellings.split()
        found.update({alias: name for alias in words})
    return found


def has_children(path: tuple[str, ...]) -> bool:
    return bool(path) and path[0] in GROUPS and bool(children(path))


def switches(path: tuple[str, ...]) -> frozenset[str]:
    """The flags of the command at `path` that take no separate value (pflag's NoOptDefVal)."""
    own = OWN_RUNS.get(path)
    if own is None:
        return ROOT_SWITCHES
    import importlib

    parser = getattr(importlib.import_module(own[0]), own[1])()
    return ROOT_SWITCHES | parser_switches(parser)


def parser_switches(parser) -> frozenset[str]:
    """Flags of an argparse parser that need no value: booleans and optional-value flags.

    -h/--help is left out: cobra adds it only once the command is found, so while searching
    `-h` takes the next word like any unknown flag (`kubectl create -h deployment` shows
    create's help)."""
    import argparse

    from kubelite.cli.common import is_text_bool

    names: set[str] = set()
    for action in parser._actions:
        if (action.nargs in (0, "?") or is_text_bool(action)) and not isinstance(action, argparse._HelpAction):
            names.update(action.option_strings)
    return frozenset(names)


# -- cobra's search ------------------------------------------------------------------------------------


def _takes_next(token: str, flags: frozenset[str]) -> bool:
    """Whether `token` is a flag whose value is the next word (`--name value`, `-x value`)."""
    if "=" in token:
        return False
    if token.startswith("--"):
        return token not in flags
    return token.startswith("-") and len(token) == 2 and token not in flags


def _words(args: list[str], flags: frozenset[str]):
    """(position, word) of each word of `args` that is neither a flag nor a flag's value, up to `--`."""
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            return
        if _takes_next(token, flags):
            i += 2
            continue
        if token and not token.startswith("-"):
            yield i, token
        i += 1


def strip_flags(args: list[str], flags: frozenset[str]) -> list[str]:
    """The words of `args` that are neither flags nor flag values, up to `--`."""
    return [word for _, word in _words(args, flags)]


def without_word(args: list[str], word: str, flags: frozenset[str]) -> list[str]:
    """`args` without the first occurrence of `word` that is not a flag's value (nor after `--`)."""
    for i, token in _words(args, flags):
        if token == word:
            return args[:i] + args[i + 1:]
    return args


def find(argv: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The command path argv names (canonical names) and the arguments left for that command."""
    path: tuple[str, ...] = ()
    args = list(argv)
    while True:
        flags = switches(path)
        words = strip_flags(args, flags)
        if not words:
            return path, args
        child = children(path).get(words[0])
        if child is None:
            return path, args
        args = without_word(args, words[0], flags)
        path = (*path, child)


def unknown_root_word(args: list[str]) -> str | None:
    """cobra's legacyArgs at the root: a word left over there is an unknown command."""
    words = strip_flags(args, ROOT_SWITCHES)
    return words[0] if words else None


# -- unknown commands ------------------------------------------------------------------------------------


def unknown_command_message(word: str) -> str:
    """cobra's error for an unknown command of the root, with its `Did you mean this?` list."""
    text = f'Error: unknown command "{word}" for "kubelite"\n'
    near = suggestions(word)
    if near:
        text += "\nDid you mean this?\n" + "".join(f"\t{name}\n" for name in near) + "\n"
    return text


def suggestions(word: str) -> list[str]:
    """Commands within two edits of `word` (case ignored) or starting with it, in the root's order."""
    lowered = word.lower()
    return [name for name in _root_order()
            if _distance(lowered, name.lower()) <= 2 or name.lower().startswith(lowered)]


def _root_order() -> list[str]:
    """The root's commands in the order kubectl adds them (its help's groups, then the rest)."""
    from kubelite.cli.help_texts_manage import TOP_GROUPS

    names = [name for _, rows in TOP_GROUPS for name, _ in rows]
    rest = [name for name in (*children(()), "help") if name not in names]
    ordered = [name for name in (*names, "config", "plugin", "version", "api-versions", "api-resources",
                                 "options", *rest) if name in children(())]
    return list(dict.fromkeys(ordered))


def _distance(a: str, b: str) -> int:
    """Levenshtein distance."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# -- commands that only group others, and the root ------------------------------------------------------


def flags_parser(path: tuple[str, ...]):
    """A parser for the global flags of a command that has none of its own (the root, a group)."""
    from kubelite.cli import common

    p = common.Parser(prog=" ".join(("kubelite", *path)), add_help=False)
    p.add_argument("args", nargs="*")
    p.add_argument("-h", "--help", action="store_true")
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    for flag in sorted(ROOT_SWITCHES - {"--insecure-skip-tls-verify"}):
        p.add_argument(flag, action="store_true")
    return p


def run_group(path: tuple[str, ...], args: list[str]) -> int:
    """A group without a subcommand: its help (on stderr, failing) or cobra's complaint."""
    from kubelite.cli import common
    from kubelite.cli.help import render
    from kubelite.cli.help_texts import HELP

    command = " ".join(path)

    def body(parsed) -> int:
        text = render(HELP[command])
        if parsed.help:
            sys.stdout.write(text)
            return 0
        if parsed.args:
            raise common.UsageError(f'error: unknown command "{" ".join(parsed.args)}"\n'
                                    f"See 'kubelite {command} -h' for help and examples")
        (sys.stdout if path in _HELP_ON_STDOUT else sys.stderr).write(text)
        return 1

    return common.run(flags_parser(path), args, body)


def run_root(args: list[str], usage) -> int:
    """The root with nothing to run: its help, or a complaint about its flags."""
    from kubelite.cli import common

    def body(parsed) -> int:
        usage()
        return 0

    return common.run(flags_parser(()), args, body)


# -- the global flags every command accepts -------------------------------------------------------------

_SHORT = {"namespace": "-n", "server": "-s", "v": "-v"}


def add_hidden_global_flags(parser) -> None:
    """kubectl's global flags on a parser that does not define them itself: accepted anywhere on the
    command line (a persistent flag of the root), not listed in its help, and stored apart
    (`global_<name>`) so they never stand for the command's own flags of the same name."""
    import argparse

    from kubelite.cli.help import GLOBAL_FLAGS

    for name in sorted(GLOBAL_FLAGS):
        if f"--{name}" in parser._option_string_actions:  # the command's own flag hides the global one,
            continue  # its short form too (kubectl config set-context --namespace has no -n)
        spellings = [f"--{name}", *([_SHORT[name]] if name in _SHORT else [])]
        dest = "global_" + name.replace("-", "_")
        if f"--{name}" in ROOT_SWITCHES:
            parser.add_argument(*spellings, dest=dest, nargs="?", const="true", help=argparse.SUPPRESS)
        else:
            parser.add_argument(*spellings, dest=dest, help=argparse.SUPPRESS)
