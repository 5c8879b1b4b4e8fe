"""Every example in docs/ runs: plain Python blocks as scripts from the repository root, blocks
marked `python pytest` as a test file of a user's project (with the plugin and examples/)."""
from __future__ import annotations

import contextlib
import io
import re
import shutil

import pytest

from api_support import ROOT, needs_kubectl

pytest_plugins = ["pytester"]

DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```python( pytest)?\n(.*?)^```", re.S | re.M)


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
