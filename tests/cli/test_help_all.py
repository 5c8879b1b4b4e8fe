"""`-h` of every command but the imperative ones (tests/imperative/test_help.py), of `kubelite -h`
and of `kubelite options`, against kubectl 1.32's, structurally.

The wording is kubelite's own (checked: no sentence of kubectl's help is reused); what must match is
the layout: section headers in order, aliases, subcommand names, usage line, footers, and every flag
with its short form and its default as pflag prints it. kubectl's help texts are read in one batch.
"""
from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

from help_structure import FLAG as _FLAG, structure  # noqa: E402

KUBECTL = "/usr/bin/kubectl"
needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")

COMMANDS = [
    "get", "describe", "create", "replace", "delete", "edit", "patch", "scale", "label", "annotate", "apply",
    "apply view-last-applied", "apply set-last-applied", "apply edit-last-applied", "diff", "kustomize", "explain",
    "version", "cluster-info", "cluster-info dump", "api-resources", "api-versions", "config", "config view",
    "config get-contexts", "config current-context", "config use-context", "config set-context", "config set",
    "config unset", "config set-cluster", "config set-credentials", "config delete-cluster", "config delete-context",
    "config delete-user", "config get-clusters", "config get-users", "config rename-context",
    "rollout", "rollout status", "rollout history", "rollout undo", "rollout pause", "rollout resume", "rollout restart",
    "cordon", "uncordon", "drain", "taint", "top", "top node", "top pod",
    "logs", "attach", "exec", "port-forward", "cp", "debug", "events", "wait", "auth can-i", "auth whoami",
    "plugin", "plugin list", "completion", "certificate", "certificate approve", "certificate deny",
]
# kubectl subcommands kubelite does not have
NOT_IMPLEMENTED: dict = {}
NOT_IMPLEMENTED_TOP = {"proxy"}
# kubectl flags kubelite does not accept yet, so its -h does not list them (each must exist in kubectl)
MISSING_FLAGS: dict = {}
# kubelite flags kubectl 1.32 does not have (each must be absent from kubectl's help)
EXTRA_FLAGS = {"diff": {"--show-secret"}}

_SEP = "=====8<====="


def kubelite(argv: list[str]) -> tuple[int, str, str]:
    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as exit_:  # argparse leaves -h this way
            rc = int(exit_.code or 0)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def kubectl_help() -> dict[str, str]:
    """kubectl's help for every command here, `kubectl -h` ("") and `kubectl options`, in one shell run."""
    if not os.path.exists(KUBECTL):
        pytest.skip("kubectl not installed")
    wanted = ["", "options", *COMMANDS]
    script = "".join(f"echo '{_SEP}'; {KUBECTL} {c} {'-h' if c != 'options' else ''}; " for c in wanted)
    p = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60,
                       env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert p.returncode == 0, p.stderr
    texts = p.stdout.split(_SEP + "\n")[1:]
    assert len(texts) == len(wanted)
    return dict(zip(wanted, texts))


@pytest.mark.kubectl
@needs_kubectl
@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_kubectls_structure(command, kubectl_help):
    rc, out, err = kubelite([*command.split(), "-h"])
    assert (rc, err) == (0, "")
    ours, theirs = structure(out, "kubelite"), structure(kubectl_help[command], "kubectl")
    theirs["commands"] = [c for c in theirs["commands"] if c not in NOT_IMPLEMENTED.get(command, ())]
    if "Available Commands:" in theirs["headers"] and not theirs["commands"]:  # none of kubectl's subcommands is in kubelite: no list, no pointer to it
        theirs["headers"].remove("Available Commands:")
        theirs["footer"] = theirs["footer"][-1:]
    missing = MISSING_FLAGS.get(command, set())
    assert missing <= set(theirs["flags"])  # the gap list stays honest
    assert not missing & set(ours["flags"])  # and is not stale
    extra = EXTRA_FLAGS.get(command, set())
    assert not extra & set(theirs["flags"]) and extra <= set(ours["flags"])
    theirs["flags"] = {k: v for k, v in theirs["flags"].items() if k not in missing}
    ours["flags"] = {k: v for k, v in ours["flags"].items() if k not in extra}
    assert ours["examples_ok"] and ours["options_ok"]
    for key in ("headers", "aliases", "commands", "usage", "footer", "flags"):
        assert ours[key] == theirs[key], key


@pytest.mark.kubectl
@needs_kubectl
@pytest.mark.parametrize("command", COMMANDS + ["serve"])
def test_wording_is_kubelites_own(command, kubectl_help):
    """No description, example or flag text line is kubectl's (layout lines aside)."""
    rc, out, _ = kubelite([*command.split(), "-h"])
    theirs = set(kubectl_help.get(command, "").replace("kubectl", "kubelite").splitlines())
    shared = [line for line in out.splitlines()
              if len(line.strip()) > 25 and line in theirs and not line.startswith("Use ")
              and not _FLAG.match(line) and not line.startswith("  kubelite " + command.split()[0])
              and line.strip() not in ("<type>.<fieldName>[.<fieldName>]",)]
    assert shared == []


@pytest.mark.kubectl
@needs_kubectl
def test_top_level_help_groups_commands_as_kubectl(kubectl_help):
    from kubelite.cli.main import COMMANDS as KUBELITE_COMMANDS

    rc, out, err = kubelite(["-h"])
    assert (rc, err) == (0, "")
    assert kubelite(["help"])[1] == out == kubelite([])[1]
    ours, theirs = structure(out, "kubelite"), structure(kubectl_help[""], "kubectl")
    groups = [h for h in ours["headers"] if h != "Usage:"]
    assert groups[-1] == "API Server Commands (kubelite):"  # serve stands alone, after kubectl's groups
    assert [line.split()[0] for line in ours["sections"][groups[-1]] if line.strip()] == ["serve"]

    def commands(s, header):
        return [line.split()[0] for line in s["sections"][header] if line.strip()]

    kubectl_groups = [h for h in theirs["headers"] if h != "Usage:" and commands(theirs, h)]
    assert groups[:-1] == kubectl_groups
    listed = []
    for header in kubectl_groups:
        expected = [c for c in commands(theirs, header) if c not in NOT_IMPLEMENTED_TOP]
        assert commands(ours, header) == expected, header
        listed += expected
    assert set(listed) | {"serve"} == set(KUBELITE_COMMANDS)  # every command is listed once
    assert NOT_IMPLEMENTED_TOP.isdisjoint(KUBELITE_COMMANDS)  # the gap list is not stale
    # one column for all groups, as cobra pads it
    assert {line.index(line.split()[1]) for h in groups for line in ours["sections"][h] if line.strip()} == \
        {line.index(line.split()[1]) for h in kubectl_groups for line in theirs["sections"][h] if line.strip()}
    assert (ours["usage"], ours["footer"]) == (theirs["usage"], theirs["footer"])


@pytest.mark.kubectl
@needs_kubectl
def test_options_lists_global_flags_as_kubectl(kubectl_help):
    rc, out, err = kubelite(["options"])
    assert (rc, err) == (0, "")
    assert out.splitlines()[0] == kubectl_help["options"].splitlines()[0]
    wrapped = "Options:\n" + out.split("\n", 2)[2]
    ours = structure(wrapped, "kubelite")["flags"]
    theirs = structure("Options:\n" + kubectl_help["options"].split("\n", 2)[2], "kubectl")["flags"]
    assert ours and ours.keys() <= theirs.keys()
    # kubectl's cache dir default is a path under $HOME; kubelite caches elsewhere
    assert {k: v for k, v in ours.items() if k != "--cache-dir"} == \
        {k: theirs[k] for k in ours if k != "--cache-dir"}


def test_every_command_has_help_in_kubectls_layout():
    from kubelite.cli.main import COMMANDS as KUBELITE_COMMANDS

    for command in [*KUBELITE_COMMANDS, *COMMANDS]:
        for flag in ("-h", "--help"):
            rc, out, err = kubelite([*command.split(), flag])
            assert (rc, err) == (0, ""), command
            s = structure(out, "kubelite")
            assert s["headers"][-1] == "Usage:", command
            assert "Examples:" in s["headers"] or "Available Commands:" in s["headers"], command
            assert s["usage"][0].startswith(command + " ") or command in ("config",), command
            assert s["footer"][-1].startswith('Use "TOOL options"'), command
            assert s["examples_ok"] and s["options_ok"], command
    assert kubelite(["help", "get"])[1] == kubelite(["get", "-h"])[1]
    assert kubelite(["config", "use", "-h"])[1] == kubelite(["config", "use-context", "-h"])[1]


_GLOBAL = {"--kubeconfig", "--context", "--cluster", "--user", "--server", "--token", "--namespace", "-n", "-s",
           "--request-timeout", "--insecure-skip-tls-verify", "--cache-dir", "-v", "--v",
           "--as", "--as-group", "--as-uid"}


@pytest.mark.parametrize("command", COMMANDS + ["serve"])
def test_examples_use_only_flags_the_command_accepts(command):
    """Every flag an example passes is one the command's parser knows (or a global one)."""
    from kubelite.cli.help_texts import HELP

    _, out, _ = kubelite([*command.split(), "-h"])
    options = set(re.findall(r"^    (?:(-\S), )?(--[a-z0-9-]+)=", out, re.M))
    known = {f for pair in options for f in pair if f} | _GLOBAL | {"--" + h for h in HELP[command].hidden}
    used = set()
    for line in structure(out, "kubelite")["sections"].get("Examples:", []):
        if not line.startswith("  kubelite "):
            continue
        words = shlex.split(line.split("| kubelite ")[-1].split(" | ")[0].strip().removeprefix("kubelite "))
        sub = command.split()[0]
        words = words[words.index(sub):] if sub in words else words
        if words[:len(command.split())] != command.split():
            continue  # an example of a subcommand or of another command feeding this one
        words = words[:words.index("--")] if "--" in words else words  # the rest is the container's command
        used |= {w.split("=", 1)[0] for w in words if w.startswith("-") and w != "-"}
    assert used <= known, used - known


def test_edit_validate_decides_how_unknown_fields_are_met(embedded, tmp_path):
    """kubectl edit's --validate (strict by default) is the fieldValidation of the saving patch."""
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\ndata: {a: b}\n")
    assert embedded.run("create", "-f", str(manifest)).returncode == 0
    editor = tmp_path / "ed"
    # a reopened file already holds the change, and is saved as it is (which ends a failing edit)
    editor.write_text("#!/bin/sh\ngrep -q bogus \"$1\" || sed -i 's/^data:/bogus: 1\\ndata:/; s/^  a: b$/  a: c/' "
                      "\"$1\"\n")
    editor.chmod(0o755)
    embedded.env["KUBE_EDITOR"] = str(editor)
    strict = embedded.run("edit", "cm/one")
    assert strict.returncode == 1 and 'configmaps "one" is invalid' in strict.stderr
    assert embedded.run("get", "cm", "one", "-o", "jsonpath={.data.a}").stdout == "b"
    ignored = embedded.run("edit", "cm/one", "--validate=ignore")
    assert (ignored.returncode, ignored.stdout) == (0, "configmap/one edited\n")
    assert embedded.run("get", "cm", "one", "-o", "jsonpath={.data.a}").stdout == "c"
    bad = embedded.run("edit", "cm/one", "--validate=maybe")
    assert bad.returncode == 1 and 'invalid - validate option "maybe"' in bad.stderr
