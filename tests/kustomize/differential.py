"""Differential harness: a kustomization tree written to a temporary directory, built by
`kubectl kustomize` and by kubelite; both outcomes compared (the YAML byte for byte, or
the error message as kubectl's klog line carries it)."""
from __future__ import annotations

import os
import re
import subprocess

from kubelite.cli.kustomize import klog_command_failed
from kubelite.kustomize import KustomizeError, build, render

KLOG_FAILED = '"command failed" err='


def write_tree(root: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def kubectl_outcome(kubectl: str, root: str, entry: str = "top") -> tuple[str, str]:
    """("ok", stdout) or ("error", klog's `"command failed" err=...` text) of `kubectl kustomize
    ENTRY` run in root (a message's final line break does not show there)."""
    env = {**os.environ, "KUBECONFIG": "/dev/null"}
    run = subprocess.run([kubectl, "kustomize", entry], cwd=root, capture_output=True, text=True,
                         timeout=120, env=env)
    if run.returncode == 0:
        return "ok", run.stdout
    assert KLOG_FAILED in run.stderr, run.stderr
    text = run.stderr[run.stderr.index(KLOG_FAILED):].rstrip("\n")
    # Go prints a generator's address in one message; kubelite prints a fixed one
    return "error", re.sub(r"&\{0xc[0-9a-f]+ ", "&{0xc000000000 ", text)


def kubelite_outcome(root: str, monkeypatch, entry: str = "top") -> tuple[str, str]:
    monkeypatch.chdir(root)
    try:
        return "ok", render(build(entry))
    except KustomizeError as exc:
        return "error", klog_command_failed(str(exc))


def assert_same(kubectl: str, files: dict[str, str], root: str, monkeypatch, prefix_only: bool = False) -> tuple:
    """Build the tree both ways and compare; with prefix_only kubectl's message may go on
    past kubelite's (where Kustomize prints Go memory addresses). Returns kubectl's outcome."""
    write_tree(root, files)
    theirs = kubectl_outcome(kubectl, root)
    mine = kubelite_outcome(root, monkeypatch)
    if prefix_only:
        assert mine[0] == theirs[0] == "error", (mine, theirs)
        # a multi-line message ends with klog's closing line, which kubectl's goes on before
        assert theirs[1].startswith(mine[1].removesuffix("\n >")), (mine[1], theirs[1])
    else:
        assert mine == theirs, f"kubelite: {mine}\nkubectl:  {theirs}"
    return theirs
