"""Differential: kubectl's "single item implied" rule for `get -f`/`get -k` with a printing
format. kubectl decides it from the sources, not from the objects: exactly one source (one file
found, a directory or pattern holding one file, or a kustomization) and no standard input. Then
one object prints as itself, several as a List, and any error suppresses all output but the
errors. `kubelite get` against `kubelite serve` must print what /usr/bin/kubectl prints there.
"""
from __future__ import annotations

import pathlib

import pytest

pytestmark = pytest.mark.kubectl


def _cm(name: str, **data: str) -> str:
    body = "".join(f"\n  {k}: {v!r}" for k, v in data.items())
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:{body or ' {}'}\n"


ALPHA, BETA, NOPE = _cm("alpha", color="blue"), _cm("beta", color="red"), _cm("nope")

# file tree below the test's folder: path -> text
FILES = {
    "one.yaml": ALPHA,
    "other.yaml": BETA,
    "two.yaml": ALPHA + "---\n" + BETA,
    "partial.yaml": ALPHA + "---\n" + NOPE,
    "missing.yaml": NOPE,
    "dir-one/a.yaml": ALPHA,
    "dir-one/notes.txt": "not a manifest\n",
    "dir-one-two/a.yaml": ALPHA + "---\n" + BETA,
    "dir-two/a.yaml": ALPHA,
    "dir-two/b.yaml": BETA,
    "nested/a.yaml": ALPHA,
    "nested/sub/b.yaml": BETA,
    "k-one/kustomization.yaml": "resources:\n- cm.yaml\n",
    "k-one/cm.yaml": ALPHA,
    "k-two/kustomization.yaml": "resources:\n- cm.yaml\n",
    "k-two/cm.yaml": ALPHA + "---\n" + BETA,
    "k-partial/kustomization.yaml": "resources:\n- cm.yaml\n",
    "k-partial/cm.yaml": ALPHA + "---\n" + NOPE,
    "k-labels/kustomization.yaml": "commonLabels:\n  app: web\nresources:\n- ../k-one\n",
}

# (arguments after `get`, standard input)
CASES = [
    (["-f", "one.yaml", "-o", "yaml"], None),
    (["-f", "one.yaml", "-o", "json"], None),
    (["-f", "two.yaml", "-o", "yaml"], None),
    (["-f", "partial.yaml", "-o", "yaml"], None),
    (["-f", "partial.yaml", "-o", "name"], None),
    (["-f", "missing.yaml", "-o", "json"], None),
    (["-f", "one.yaml", "-f", "other.yaml", "-o", "yaml"], None),
    (["-f", "one.yaml", "-f", "missing.yaml", "-o", "yaml"], None),
    (["-f", "dir-one", "-o", "yaml"], None),
    (["-f", "dir-one-two", "-o", "yaml"], None),
    (["-f", "dir-two", "-o", "yaml"], None),
    (["-f", "nested", "-o", "yaml"], None),
    (["-f", "nested", "-R", "-o", "yaml"], None),
    (["-f", "dir-*", "-o", "name"], None),
    (["-f", "dir-two/a*.yaml", "-o", "yaml"], None),
    (["-f", "-", "-o", "yaml"], ALPHA),
    (["-f", "one.yaml", "-o", "jsonpath={.kind}"], None),
    (["-k", "k-one", "-o", "yaml"], None),
    (["-k", "k-two", "-o", "json"], None),
    (["-k", "k-partial", "-o", "yaml"], None),
    (["-k", "k-labels", "-o", "yaml"], None),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("single-item")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def loaded(served, tree):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig), "apply", "-f",
                        str(tree / "two.yaml")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return served


def _same(mine, theirs) -> None:
    assert mine.returncode == theirs.returncode, (mine.stderr, theirs.stderr)
    assert mine.stdout == theirs.stdout
    assert mine.stderr == theirs.stderr


@pytest.mark.parametrize("args,stdin", CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else "")
def test_get_prints_as_kubectl(loaded, tree, remote, kubectl, args, stdin):
    theirs = kubectl.run("get", *args, stdin=stdin, cwd=tree)
    mine = remote.run("get", *args, stdin=stdin, cwd=tree)
    _same(mine, theirs)


def test_cases_cover_both_outcomes(loaded, tree, kubectl):
    """kubectl itself prints a lone object for one case and a List for another, so the cases
    above really tell the two apart."""
    single = kubectl.run("get", "-f", "dir-one", "-o", "yaml", cwd=tree)
    several = kubectl.run("get", "-f", "one.yaml", "-f", "other.yaml", "-o", "yaml", cwd=tree)
    assert single.returncode == 0 and single.stdout.startswith("apiVersion: v1\ndata:")
    assert several.returncode == 0 and "kind: List" in several.stdout
