"""The command search (cobra's rules) on its own: which path an argv names and what is left."""
from __future__ import annotations

import pytest

from kubelite.cli import command_line
from kubelite.cli.help_texts import HELP
from kubelite.cli.main import COMMANDS


def test_groups_are_the_commands_with_subcommands():
    with_subcommands = {name for name, record in HELP.items() if record.subcommands and " " not in name}
    assert command_line.GROUPS == with_subcommands
    assert set(command_line.GROUPS) <= set(COMMANDS)


def test_subcommand_table_is_the_help_records():
    """command_line.SUBCOMMANDS says what the help records say: each subcommand, named by its aliases."""
    paths = {tuple(name.split()[:i]) for name in HELP for i in range(1, len(name.split()))}
    for path in paths:
        prefix = " ".join(path) + " "
        expected = {}
        for command, record in HELP.items():
            name = command[len(prefix):]
            if command.startswith(prefix) and " " not in name:
                expected.update({alias: name for alias in (record.aliases or (name,))})
        assert list(command_line.children(path).items()) == list(expected.items()), path
    assert set(command_line.SUBCOMMANDS) <= {" ".join(p) for p in paths}


@pytest.mark.parametrize("argv, path, rest", [
    # a subcommand's flags before its name, a parent's after it
    ("create --dry-run=client -o yaml deployment x --image=n", ("create", "deployment"),
     "--dry-run=client -o yaml x --image=n"),
    ("create -n ns configmap c", ("create", "configmap"), "-n ns c"),
    ("create secret -n ns generic s", ("create", "secret", "generic"), "-n ns s"),
    ("-o name get ns", ("get",), "-o name ns"),
    # a flag value that spells a subcommand is a value, the next such word is the subcommand
    ("create -n secret secret generic s", ("create", "secret", "generic"), "-n secret s"),
    # aliases name the subcommand
    ("create deploy x", ("create", "deployment"), "x"),
    ("top no", ("top", "node"), ""),
    # an unknown flag takes the next word, a known switch does not
    ("set --local image d x=y", ("set",), "--local image d x=y"),
    ("create --save-config deployment x", ("create", "deployment"), "--save-config x"),
    ("--insecure-skip-tls-verify get ns", ("get",), "--insecure-skip-tls-verify ns"),
    ("-h get", (), "-h get"),
    # `--` ends the search
    ("-- get", (), "-- get"),
    ("create job j -- echo create", ("create", "job"), "j -- echo create"),
    ("foo bar", (), "foo bar"),
])
def test_find(argv, path, rest):
    assert command_line.find(argv.split()) == (path, rest.split())


def test_suggestions_in_the_roots_order():
    assert command_line.suggestions("fo") == ["top", "cp"]
    assert command_line.suggestions("crate") == ["create"]
    assert command_line.suggestions("zzzzzz") == []
    assert command_line.unknown_command_message("zzzzzz") == 'Error: unknown command "zzzzzz" for "kubelite"\n'
