"""Every example in docs/ and README.md runs: plain Python blocks as scripts from the repository
root (what a `print(...)  # OUTPUT` line promises is compared), blocks marked `python pytest` as a
test file of a user's project (with the plugin and examples/), `console` sessions command by
command against a fresh local cluster, output compared, and indented command blocks (a
`kubelite serve` and the commands using it) as a shell session."""
from __future__ import annotations

import contextlib
import io
import os
import re
import select
import shutil
import subprocess
import sys
import time

import pytest

from api_support import ROOT, needs_kubectl

pytest_plugins = ["pytester"]

DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]
BLOCK = re.compile(r"^```python( pytest)?\n(.*?)^```", re.S | re.M)
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INDENTED = re.compile(r"(?:^\n)((?:^    \S.*\n)+)", re.M)
PRINT = re.compile(r"^\s*print\(.*\)\s+# (.*)$")
COMMENT = re.compile(r"^\s*# (.*)$")


def blocks(kind: str) -> list:
    found = []
    for page in PAGES:
        for i, match in enumerate(BLOCK.finditer(page.read_text())):
            if bool(match.group(1)) == (kind == "pytest"):
                found.append(pytest.param(match.group(2), id=f"{page.stem}-{i}"))
    return found


def test_the_docs_have_examples():
    assert len(blocks("script")) >= 10 and len(blocks("pytest")) >= 5
    assert any(p.id.startswith("README-") for p in blocks("script"))
    assert len(shell_blocks()) >= 1


def promised_output(code: str) -> list[str] | None:
    """The lines the block's prints promise in their comments (`print(x)  # 2`, or the comment on
    the next line), up to two spaces (what follows is prose); None if some print promises nothing."""
    lines = code.splitlines()
    promised = []
    for i, line in enumerate(lines):
        if "print(" not in line:
            continue
        match = PRINT.match(line) or (COMMENT.match(lines[i + 1]) if i + 1 < len(lines) else None)
        if match is None:
            return None
        promised.append(match.group(1).split("  ")[0])
    return promised


def test_promised_output_reads_the_comments():
    assert promised_output("x = 1\nprint(x)   # 1\nprint([x])\n# [1]\nprint(repr(''))   # ''  (empty)\n") == \
        ["1", "[1]", "''"]
    assert promised_output("print(1)\nx = 2\n") is None


@needs_kubectl
@pytest.mark.parametrize("code", blocks("script"))
def test_script_example(code, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HOME", str(tmp_path))  # kubectl's caches stay out of the real home
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})
    promised = promised_output(code)
    if promised is not None:
        assert out.getvalue().splitlines() == promised


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
    for page in PAGES:
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


def shell_blocks() -> list:
    """Indented blocks outside fences: shell commands, one a line."""
    found = []
    for page in PAGES:
        text = FENCE.sub("", page.read_text())
        for i, match in enumerate(INDENTED.finditer(text)):
            commands = [line[4:] for line in match.group(1).splitlines()]
            found.append(pytest.param(commands, id=f"{page.stem}-indented-{i}"))
    return found


SERVE_READY = "kubelite API server listening on "
FREE_PORT = "--port 0"  # a fixed port (6443 in the docs) may be taken on a shared machine


@needs_kubectl
@pytest.mark.parametrize("commands", shell_blocks())
def test_shell_block(commands, tmp_path):
    """Commands run in order from the repository root with a fresh HOME (so ~/.kube and
    ~/.kubelite are the test's); `kubelite serve` runs in the background until the rest is done,
    the others must succeed."""
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBELITE_HOME")}
    env.update(HOME=str(tmp_path), PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}")
    servers = []
    try:
        for command in commands:
            if command.startswith("kubelite serve"):
                command = re.sub(r"--port \d+", FREE_PORT, command)
                server = subprocess.Popen(["bash", "-c", f"exec {command}"], env=env, cwd=ROOT, text=True,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                servers.append(server)
                wait_until_serving(server, deadline=time.monotonic() + 60)
                continue
            done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, cwd=ROOT,
                                  timeout=120)
            assert done.returncode == 0, f"$ {command}\n{done.stdout}{done.stderr}"
    finally:
        for server in servers:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def wait_until_serving(server: subprocess.Popen, deadline: float) -> None:
    """Read the server's stderr until it says it listens (its kubeconfig is written before)."""
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([server.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = server.stderr.readline()
        if not line:
            break
        seen.append(line)
        if SERVE_READY in line:
            return
    raise AssertionError(f"kubelite serve did not start (exit {server.poll()}):\n{''.join(seen)}")
