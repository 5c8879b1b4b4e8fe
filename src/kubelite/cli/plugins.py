"""Plugins as kubectl runs them: `kubelite foo bar` runs an executable `kubelite-foo-bar` (or
`kubectl-foo-bar`, then `...-foo`) found on PATH with the rest of argv, and `plugin list`.

A command of kubelite's own always wins; an unknown command, or an unknown subcommand of `create`,
is looked up as a plugin before it is reported as unknown. The longest name made of the leading
words (dashes in them written as underscores) is tried first.
"""
from __future__ import annotations

import argparse
import os
import sys

PREFIXES = ("kubelite", "kubectl")
# commands whose unknown subcommands may be plugins (`create foo` runs kubectl-create-foo)
SUBCOMMAND_PLUGINS = frozenset({"create"})


class PluginError(Exception):
    """Printed as `Error: <message>` with exit 1, as kubectl reports a plugin it cannot run."""


def lookup(name: str) -> str | None:
    """The path of the plugin executable `<prefix>-<name>` on PATH, if any."""
    import shutil

    for prefix in PREFIXES:
        found = shutil.which(f"{prefix}-{name}")
        if found:
            return found
    return None


def find(argv: list[str], min_words: int) -> tuple[str, list[str]] | None:
    """The plugin argv names and the arguments it gets, or None.

    Only names of at least `min_words` words are tried (`create foo` never falls back to a
    plugin named `create`)."""
    words = []
    for arg in argv:
        if arg.startswith("-"):
            break
        words.append(arg.replace("-", "_"))
    if not words:
        raise PluginError(f"flags cannot be placed before plugin name: {argv[0]}")
    while len(words) >= max(min_words, 1):
        path = lookup("-".join(words))
        if path is not None:
            return path, argv[len(words):]
        words.pop()
    return None


def run_if_found(argv: list[str], min_words: int) -> int | None:
    """Replace this process with the plugin argv names, if there is one; else None."""
    try:
        found = find(argv, min_words)
        if found is None:
            return None
        path, args = found
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(path, [path, *args], dict(os.environ))
    except PluginError as err:
        sys.stderr.write(f"Error: {err}\n")
    except OSError as err:
        sys.stderr.write(f"Error: {(err.strerror or str(err)).lower()}\n")
    return 1


# -- plugin list ------------------------------------------------------------------------------------


def run(argv: list[str]) -> int:
    """`plugin list` (the command line routes `plugin` alone to the group's help)."""
    from kubelite.cli import common

    p = common.parser("plugin list", "List the plugin executables on PATH.")
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    p.add_argument("--name-only", action="store_true")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)  # kubectl ignores them
    from kubelite.cli.help import installed

    installed(p, "plugin list")
    return common.run(p, argv[1:], _list)


def _list(args) -> int:
    """Every file named like a plugin in each PATH directory, in PATH order, with kubectl's warnings."""
    from kubelite.cli import common

    files, problems = _plugin_files(report=True)
    seen: dict[str, str] = {}
    warnings = 0
    if files:
        sys.stdout.write("The following compatible plugins are available:\n\n")
    for full in files:
        name = os.path.basename(full)
        sys.stdout.write(f"{name if args.name_only else full}\n")
        sys.stdout.flush()
        for warning in _warnings(full, name, seen):
            sys.stderr.write(f"  - {warning}\n")
            warnings += 1
    if not files:
        problems.append("error: unable to find any kubelite plugins in your PATH")
    if warnings:
        problems.append("error: one plugin warning was found" if warnings == 1 else
                        f"error: {warnings} plugin warnings were found")
    if problems:
        raise common.VerbatimError("".join(f"{p}\n" for p in problems))
    return 0


def _plugin_files(report: bool = False) -> tuple[list[str], list[str]]:
    """The plugin files of every PATH directory (each directory once, in order; names sorted), and the
    directories that could not be read for another reason than not existing (those that do not
    exist are reported on stderr when `report`)."""
    files: list[str] = []
    problems: list[str] = []
    for directory in dict.fromkeys(os.environ.get("PATH", "").split(os.pathsep)):
        if not directory.strip():
            continue
        try:
            names = sorted(os.listdir(directory))
        except OSError as err:
            reason = f"open {directory}: {(err.strerror or str(err)).lower()}"
            if not isinstance(err, (FileNotFoundError, NotADirectoryError, PermissionError)):
                problems.append(f'error: unable to read directory "{directory}" in your PATH: {reason}')
            elif report:
                sys.stderr.write(f'Unable to read directory "{directory}" from your PATH: {reason}. Skipping...\n')
            continue
        for name in names:
            full = os.path.join(directory, name)
            if name.startswith(tuple(f"{p}-" for p in PREFIXES)) and not os.path.isdir(full):
                files.append(full)
    return files, problems


def command_words(full: str) -> list[str]:
    """The command line a plugin file answers: `kubectl-foo-bar_baz` -> foo, bar-baz."""
    return [word.replace("_", "-") for word in os.path.basename(full).split("-")[1:]]


def top_level() -> list[str]:
    """The first word of each plugin that adds a command of its own (kubelite has no command of that
    name), in PATH order, once for each plugin file (a shadowed one too), as kubectl lists them."""
    from kubelite.cli import command_line

    words = [command_words(full) for full in _plugin_files()[0]]
    return [w[0] for w in words if w and w[0] and command_line.find(w)[0] == ()]


def next_words(typed: list[str]) -> list[str]:
    """The words that may follow `typed` (a plugin's leading words) to name another plugin."""
    found = []
    for full in _plugin_files()[0]:
        words = command_words(full)
        if len(words) > len(typed) and words[:len(typed)] == typed and words[len(typed)] not in found:
            found.append(words[len(typed)])
    return found


def _warnings(full: str, name: str, seen: dict[str, str]) -> list[str]:
    """What kubectl's verifier says of one plugin file: not executable, shadowed, shadowing a command."""
    from kubelite.cli import command_line

    found = []
    if not os.stat(full).st_mode & 0o111:
        found.append(f"warning: {full} identified as a kubelite plugin, but it is not executable")
    if name in seen:
        found.append(f"warning: {full} is overshadowed by a similarly named plugin: {seen[name]}")
    else:
        seen[name] = full
    # kubectl warns whenever its command search finds a command, so `create-foo` too
    path, _ = command_line.find(name.split("-")[1:])
    if path:
        found.append(f'warning: {name} overwrites existing command: "kubelite {" ".join(path)}"')
    return found
