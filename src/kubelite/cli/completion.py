"""Shell completion: `kubelite __complete ARGS... WORD` answers what may stand at WORD, as cobra's
hidden completion command does for kubectl, and `completion SHELL` prints a script that asks it.

The answer is one candidate a line (`name<TAB>description` unless `__completeNoDesc`), then
`:<directive>` (4: no file names, 0: the shell's default, file names), and on stderr the
directive's name. Candidates: subcommands, values of a few flags (namespaces, kubeconfig
contexts, clusters and users, -o formats), resource types and the names of objects on the cluster.
"""
from __future__ import annotations

import sys

COMPLETE, COMPLETE_NO_DESC = "__complete", "__completeNoDesc"
DEFAULT, NO_SPACE, NO_FILE = 0, 2, 4
_DIRECTIVES = {DEFAULT: "ShellCompDirectiveDefault", NO_SPACE: "ShellCompDirectiveNoSpace",
               NO_FILE: "ShellCompDirectiveNoFileComp"}

# commands whose arguments are TYPE [NAME...] or TYPE/NAME
_TYPE_AND_NAME = frozenset({"get", "describe", "delete", "edit", "label", "annotate", "patch"})
# commands whose argument is a pod, or TYPE/NAME of something with pods
_POD = frozenset({"logs", "exec", "attach", "port-forward"})
_POD_OWNERS = ("daemonsets/", "deployments/", "pods/", "jobs/", "replicasets/", "replicationcontrollers/",
               "services/", "statefulsets/")
# commands that take only certain types, then names of them
_ROLLOUT_TYPES = ("deployment", "daemonset", "statefulset")
_SCALE_TYPES = ("deployment", "replicaset", "replicationcontroller", "statefulset")
_SPECIFIED = {("scale",): _SCALE_TYPES, ("autoscale",): _SCALE_TYPES,
              ("expose",): ("pod", "service", "replicationcontroller", "deployment", "replicaset"),
              **{("set", sub): ("daemonsets", "deployments", "pods", "cronjobs", "replicasets",
                                "replicationcontrollers", "statefulsets") for sub in ("image", "env", "resources")},
              **{("rollout", sub): _ROLLOUT_TYPES for sub in ("history", "pause", "restart", "resume", "status",
                                                              "undo")}}
# commands whose first argument is a node (taint first takes the word `node`)
_NODE = frozenset({("cordon",), ("uncordon",), ("drain",), ("top", "node")})
# flags cobra offers first because the command requires them
_REQUIRED = {("scale",): "--replicas", ("autoscale",): "--max", ("run",): "--image"}
# kubeconfig names: which list each config subcommand (and flag) completes from
_KUBECONFIG = {("config", "use-context"): "contexts", ("config", "delete-context"): "contexts",
               ("config", "rename-context"): "contexts", ("config", "get-contexts"): "contexts",
               ("config", "delete-cluster"): "clusters", ("config", "delete-user"): "users",
               ("config", "set-context"): "contexts"}
_FLAG_NAMES = {"--context": "contexts", "--cluster": "clusters", "--user": "users"}
_PLUGIN = "Run the plugin {}"
OUTPUT_FORMATS = ("json", "yaml", "name", "go-template", "go-template-file", "template", "templatefile",
                  "jsonpath", "jsonpath-as-json", "jsonpath-file", "custom-columns", "custom-columns-file",
                  "wide")


def run_complete(args: list[str], descriptions: bool) -> int:
    if not args:
        sys.stderr.write("Error: requires at least 1 arg(s), only received 0\n")
        return 1
    try:
        candidates, directive = complete(args[:-1], args[-1])
    except Exception:  # noqa: BLE001 - a failed lookup (no cluster, bad kubeconfig) completes nothing
        candidates, directive = [], NO_FILE
    for name, description in candidates:
        sys.stdout.write(f"{name}\t{description}\n" if descriptions and description else f"{name}\n")
    sys.stdout.write(f":{directive}\n")
    sys.stderr.write(f"Completion ended with directive: {_DIRECTIVES[directive]}\n")
    return 0


def complete(prior: list[str], word: str) -> tuple[list[tuple[str, str]], int]:
    """The candidates for `word` after the words `prior`, and the directive for the shell."""
    from kubelite.cli import command_line

    flag, prefix, context = _flag_being_valued(prior, word)
    path, rest = command_line.find(context)
    if flag is not None:
        return _flag_values(path, context, flag, prefix)
    # cobra offers the flags a command requires, while they are missing, before anything else
    required = [name for name in _required(path) if not any(a.split("=")[0] == name for a in context)]
    if word.startswith("-"):
        return _starting(word, required or _flag_names(path, context, word)), NO_FILE
    parser = _parser_of(path)
    own = command_line.parser_switches(parser) if parser is not None else _COMMON_SWITCHES
    positional = command_line.strip_flags(rest, command_line.switches(path) | own)
    if not path and positional:  # a plugin's name: the words that name longer plugins
        from kubelite.cli import plugins

        return _starting(word, [(w, _PLUGIN.format(w)) for w in plugins.next_words(positional)]), DEFAULT
    if command_line.has_children(path) or not path:
        if positional:
            return [], NO_FILE
        return _starting(word, _subcommands(path)), NO_FILE
    candidates, directive = _arguments(path, prior, positional, word)
    return _starting(word, required) + candidates, directive


def _required(path: tuple[str, ...]) -> list[str]:
    if path and path[0] == "create" and len(path) > 1:
        from kubelite.cli.create_generators import SPECS

        spec = SPECS.get(" ".join(path[1:]))
        return [f"--{name}" for name in spec.required] if spec is not None else []
    return [_REQUIRED[path]] if path in _REQUIRED else []


# -- flags ---------------------------------------------------------------------------------------------

# switches of most commands (a switch never takes the next word as its value), for the commands whose
# parser cannot be built here
_COMMON_SWITCHES = frozenset({"-A", "--all-namespaces", "-w", "--watch", "--watch-only", "--no-headers",
                              "--show-labels", "-R", "--recursive", "--all", "--local", "--overwrite", "--force",
                              "--ignore-not-found", "-i", "--stdin", "-t", "--tty", "-p", "--previous",
                              "--list", "--current", "--raw", "--minify", "--flatten"})


def _flag_being_valued(prior: list[str], word: str) -> tuple[str | None, str, list[str]]:
    """The flag whose value `word` is (`-n WORD` or `--namespace=WORD`), the value typed so far, and
    the words before, without that flag."""
    if word.startswith("--") and "=" in word:
        flag, _, value = word.partition("=")
        return flag, value, prior
    last = prior[-1] if prior else ""
    if last.startswith("-") and "=" not in last and last not in _COMMON_SWITCHES and last != "--" and \
            (last.startswith("--") or len(last) == 2):
        return last, word, prior[:-1]
    return None, word, prior


def _flag_names(path: tuple[str, ...], prior: list[str], word: str) -> list[str]:
    """The flags cobra offers for a word starting with `-`: the global ones, then the command's own and
    --help, each sorted, a short form after its long one when only `-` is typed; flags already given
    are left out unless they may be repeated."""
    import argparse

    from kubelite.cli.help import GLOBAL_FLAGS, _local_actions

    given = {token.split("=", 1)[0] for token in prior if token.startswith("-")}
    shorts = {"namespace": "-n", "server": "-s", "v": "-v"}
    repeatable = {"as-group"}
    parser = _parser_of(path)
    local = list(_local_actions(parser)) if parser is not None else []
    own = {next(s for s in a.option_strings if s.startswith("--"))[2:] for a in local
           if any(s.startswith("--") for s in a.option_strings)}
    if path == ("config",):  # config's own --kubeconfig (persistent for its subcommands) hides the global one
        own.add("kubeconfig")
        local.append(argparse.Action(["--kubeconfig"], "kubeconfig"))
    entries = [(name, shorts.get(name), name in repeatable) for name in sorted(GLOBAL_FLAGS - own)]
    mine = [(long[2:], next((s for s in a.option_strings if len(s) == 2), None),
             isinstance(a, argparse._AppendAction) or isinstance(a.default, list))
            for a in local for long in [next((s for s in a.option_strings if s.startswith("--")), "")] if long]
    mine = list({name: (name, short, many) for name, short, many in mine}.values())
    if path:
        entries += sorted([*mine, ("help", "-h", False)])
    else:  # the global flags are the root's own: one sorted list with --help
        entries = sorted([*entries, ("help", "-h", False)])
    names = []
    for name, short, many in entries:
        if not many and (f"--{name}" in given or short in given):
            continue
        names.append(f"--{name}")
        if short and len(word) <= 1:
            names.append(short)
    return names


def _parser_of(path: tuple[str, ...]):
    """The parser of the command at `path`, where its module can build one; else None."""
    import importlib

    from kubelite.cli.main import COMMANDS

    if not path or path[0] not in COMMANDS:
        return None
    module = importlib.import_module(COMMANDS[path[0]])
    try:
        if len(path) == 1:
            builders = {"label": lambda: module.build_parser(module.LABEL, "", ""),
                        "annotate": lambda: module.build_parser(module.ANNOTATE, "", ""),
                        "cordon": lambda: module.build_parser("cordon"),
                        "uncordon": lambda: importlib.import_module("kubelite.cli.cordon").build_parser("uncordon")}
            return builders.get(path[0], getattr(module, "build_parser", lambda: None))()
        if path[0] in ("set", "rollout"):
            return module._parser(path[1])
        if path[0] == "top":
            return module.build_parser(path[1])
        if path[0] == "create":
            if path[1:] == ("token",):
                return importlib.import_module("kubelite.cli.create_token").build_parser()
            generators = importlib.import_module("kubelite.cli.create_generators")
            return generators._parser(generators.SPECS[" ".join(path[1:])])
        if path[0] in ("config", "auth"):
            parent = module.build_parser()
            return parent._subparsers._group_actions[0].choices[path[1]]
        if path[0] == "apply":
            return module.last_applied_parser(path[1])
    except (AttributeError, KeyError, TypeError):
        return None
    return None


def _flag_values(path: tuple[str, ...], prior: list[str], flag: str, prefix: str):
    """Values of the flags kubectl completes: the global ones naming things, and get's -o."""
    if flag in ("-n", "--namespace"):
        return _starting(prefix, _names(prior, "namespaces")), NO_FILE
    if flag in _FLAG_NAMES:
        return _starting(prefix, _kubeconfig_names(prior, _FLAG_NAMES[flag])), NO_FILE
    if flag in ("-o", "--output") and path == ("get",):
        return _starting(prefix, OUTPUT_FORMATS), NO_FILE
    return [], DEFAULT


# -- arguments -------------------------------------------------------------------------------------------


def _arguments(path: tuple[str, ...], prior: list[str], positional: list[str], word: str):
    if path in _KUBECONFIG:
        return ([] if positional else _starting(word, _kubeconfig_names(prior, _KUBECONFIG[path]))), NO_FILE
    if path[0] in _TYPE_AND_NAME:
        return _types_and_names(prior, positional, word), NO_FILE
    if path[0] in _POD and len(path) == 1:
        if positional:
            return [], NO_FILE
        if "/" in word:
            return _slash_names(prior, word), NO_FILE
        return _starting(word, _names(prior, "pods") + list(_POD_OWNERS)), NO_FILE
    if path in _NODE:
        return ([] if positional else _starting(word, _names(prior, "nodes"))), NO_FILE
    if path == ("taint",):
        if not positional:
            return _starting(word, ["node"]), NO_FILE
        return _starting(word, _names(prior, "nodes")), NO_FILE
    if path == ("top", "pod"):
        return ([] if positional else _starting(word, _names(prior, "pods"))), NO_FILE
    if path in _SPECIFIED:
        if not positional:
            return _starting(word, _SPECIFIED[path]), NO_FILE
        return _starting(word, _names(prior, positional[0])), NO_FILE
    return [], DEFAULT


def _types_and_names(prior: list[str], positional: list[str], word: str) -> list[tuple[str, str]]:
    if not positional:
        if "/" in word:
            return _slash_names(prior, word)
        return _starting(word, _resource_types(prior))
    if "/" in positional[0]:
        return []
    names: list[str] = []
    for typed in positional[0].split(","):
        names += _names(prior, typed)
    return _starting(word, names)


def _slash_names(prior: list[str], word: str) -> list[tuple[str, str]]:
    typed = word.split("/", 1)[0]
    return _starting(word, [f"{typed}/{name}" for name in _names(prior, typed)])


# -- what the cluster and the kubeconfig hold ---------------------------------------------------------------


def _session(prior: list[str]):
    from kubelite.cli import command_line, common

    parser = command_line.flags_parser(())
    args, _ = parser.parse_known_args(common._split_short_equals(prior, parser._option_string_actions))
    return common.session(args)


def _resource_types(prior: list[str]) -> list[str]:
    from kubelite.cli.api_resources import render, select

    sess = _session(prior)
    try:
        return render(select(sess.discovery.preferred(), None, None, ["get"], []), "name", "", True).split()
    finally:
        sess.close()


def _names(prior: list[str], typed: str) -> list[str]:
    """Names of the objects of a type in the namespace of the command line (or its kubeconfig)."""
    sess = _session(prior)
    try:
        info = sess.discovery.resolve(typed)
        listed = sess.client.list(info, sess.namespace if info.namespaced else None)
        return [(item.get("metadata") or {}).get("name", "") for item in listed.get("items") or ()]
    finally:
        sess.close()


def _kubeconfig_names(prior: list[str], which: str) -> list[str]:
    """Names of the contexts, clusters or users of the kubeconfig the command line selects (kubectl
    holds them in maps; they come sorted)."""
    from kubelite.cli import command_line
    from kubelite.client.kubeconfig import load

    args, _ = command_line.flags_parser(()).parse_known_args(prior)
    config = load(args.kubeconfig)
    return sorted(getattr(config, which)) if config is not None else []


# -- candidates ---------------------------------------------------------------------------------------------


def _subcommands(path: tuple[str, ...]) -> list[tuple[str, str]]:
    """The subcommands of `path` (names, not aliases) with their short descriptions, sorted as cobra sorts."""
    from kubelite.cli import command_line
    from kubelite.cli.help_texts import HELP

    shorts = dict(HELP[" ".join(path)].subcommands) if path else _root_shorts()
    names = set(command_line.children(path).values())
    if not path:  # plugins add commands of their own
        from kubelite.cli import plugins

        found = plugins.top_level()
        shorts.update({name: _PLUGIN.format(name) for name in found})
        names.update(found)
    names = sorted(names)
    return [(name, shorts.get(name) or _first_sentence(HELP.get(" ".join((*path, name))))) for name in names]


def _first_sentence(record) -> str:
    return record.description.split("\n")[0].split(". ")[0].rstrip(".") if record is not None else ""


def _root_shorts() -> dict[str, str]:
    from kubelite.cli.help_texts_manage import TOP_GROUPS

    shorts = {name: short for _, rows in TOP_GROUPS for name, short in rows}
    shorts.update({"help": "Help about any command", "options": "Print the list of flags inherited by all commands",
                   "completion": "Print a shell script that completes kubelite's command lines"})
    return shorts


def _starting(word: str, candidates) -> list[tuple[str, str]]:
    pairs = [c if isinstance(c, tuple) else (c, "") for c in candidates]
    return [(name, description) for name, description in pairs if name.startswith(word)]


# -- completion SHELL ----------------------------------------------------------------------------------------

_SHELLS = ("bash", "zsh", "fish", "powershell")


def run(argv: list[str]) -> int:
    """`completion SHELL`: the script for SHELL on stdout."""
    import argparse

    from kubelite.cli import common

    p = common.parser("completion", "Print a shell completion script.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    from kubelite.cli.help import installed

    installed(p, "completion")
    return common.run(p, argv, _print_script)


def _print_script(args) -> int:
    from kubelite.cli import common
    from kubelite.cli.completion_scripts import script

    if not args.args:
        raise common.UsageError("error: Shell not specified.\nSee 'kubelite completion -h' for help and examples")
    if len(args.args) > 1:
        raise common.UsageError("error: Too many arguments. Expected only the shell type.\n"
                                "See 'kubelite completion -h' for help and examples")
    if args.args[0] not in _SHELLS:
        raise common.UsageError(f'error: Unsupported shell type "{args.args[0]}".\n'
                                "See 'kubelite completion -h' for help and examples")
    sys.stdout.write(script(args.args[0]))
    return 0
