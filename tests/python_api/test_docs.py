"""Every example in docs/ runs: plain Python blocks as scripts from the repository root, blocks
marked `python pytest` as a test file of a user's project (with the plugin and examples/), and
`console` sessions command by command against a fresh local cluster, output compared."""
from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys

import pytest

from api_support import ROOT, needs_kubectl

pytest_plugins = ["pytester"]

DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```python( pytest)?\n(.*?)^```", re.S | re.M)
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for i, match in enumerate(BLOCK.finditer(page.read_text())):
            if bool(match.group(1)) == (kind == "pytest"):
                found.append(pytest.param(match.group(2), id=f"{page.stem}-{i}"))
    return found


def test_the_docs_have_examples():
    assert len(blocks("script")) >= 10 and len(blocks("pytest")) >= 5


@needs_kubectl
@pytest.mark.parametrize("code", blocks("script"))
def test_script_example(code, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOME", str(tmp_path))  # kubectl's caches stay out of the real home
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})


@needs_kubectl
@pytest.mark.parametrize("code", blocks("pytest"))
def test_pytest_example(code, pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("HOME", str(pytester.path))
    shutil.copytree(ROOT / "examples", pytester.path / "examples")
    pytester.makepyfile(test_docs_example=code)
    from test_pytest_plugin import plugin_args

    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-q")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 1 and not outcomes.get("failed") and not outcomes.get("errors"), \
        result.stdout.str()


def sessions() -> list:
    """Each page's console blocks, as one session: [(command, expected output lines)]."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        steps: list[tuple[str, list[str]]] = []
        for block in CONSOLE.findall(page.read_text()):
            for line in block.splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                else:
                    steps[-1][1].append(line)
        if steps:
            found.append(pytest.param(steps, id=page.stem))
    return found


def matches(expected: list[str], got: list[str]) -> bool:
    """Line by line; `...` stands for any number of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


@pytest.mark.parametrize("steps", sessions())
def test_console_session(steps, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kubelite"),
               PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}")
    for command, expected in steps:
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=120)
        got = done.stdout.splitlines()
        assert matches(expected, got), f"$ {command}\n{done.stdout}{done.stderr}"
