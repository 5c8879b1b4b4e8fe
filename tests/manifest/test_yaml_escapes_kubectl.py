"""Escapes in double-quoted YAML scalars, differential against /usr/bin/kubectl (offline).

kubectl reads YAML with go-yaml (v2 for manifests, v3 in kustomize), whose escapes are not
libyaml's: go-yaml refuses "\\/" and takes "\\'", libyaml the other way round. Both of
kubelite's YAML readers (the block-style one and the libyaml one) must take what kubectl
takes, with the same value, and refuse the rest with kubectl's message, writing nothing.
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

from kubelite.manifest import ManifestError, read_sources, to_json
from tests.cli.cli_support import CLI, KUBECTL, kubelite_argv
from tests.manifest.test_read_kubectl import _kubectl_json

pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed"),
]

# What follows the backslash: go-yaml v2's escapes, libyaml's "/", unknown letters, a tab, a
# carriage return, a non-ASCII letter, hexadecimal escapes short or out of Unicode's range.
ESCAPES = ["0", "a", "b", "t", "\t", "n", "v", "f", "r", "e", " ", '"', "'", "\\", "N", "_", "L", "P",
           "x41", "u00e9", "U0001F600", "/", "q", "c", "E", "T", "%", "\u00e9", "\r", "x4", "xZZ",
           "uD800", "U00110000", "\\/", "\\\\/"]

HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e{i}\n"
# A double-quoted scalar as a block mapping's value (the block-style reader's), as a key, in a
# flow mapping and over two lines (the libyaml reader's).
FORMS = [
    'data:\n  k: "a\\{e}b"\n',
    'data:\n  "k\\{e}": v\n',
    'data: {{k: "a\\{e}b"}}\n',
    'data:\n  k: "a\n    \\{e}b"\n',
]


def _documents() -> list[str]:
    texts = []
    for form in FORMS:
        for escape in ESCAPES:
            texts.append((HEAD + form).format(i=len(texts), e=escape))
    return texts


# Escapes next to other errors: which one go-yaml meets first is the one kubectl reports.
MIXED = [
    'data:\n  k: "a\\/b"\n  j: [\n',
    'data:\n  j: [\n  k: "a\\/b"\n',
    "data:\n  k: \"a\\'b\"\n  j: [\n",
    "data:\n  k: \"a\\'b\"\n  l: *nope\n",
    "data:\n  k: \"a\\'b\"\n  m: \"\\uD800\"\n",
    "data:\n  k: \"a\\'b\"\n  m: \"\\/\"\n",
    "data:\n  k: \"a\\'b\"\n  m: \"\\x4\"\n",
    'data:\n  k: "a\\/b"\n"\\q": 1\n',
    'data:\n  k: "\\q"\n"\\/": 1\n',
    "data:\n  k: \"a\\'b \\\t \\\"\n    c \\/\"\n",
    "data:\n  k: \"a\\'b\"\n  j: \"\\'\"\n  l: \"x\\'\"\n  m: {a: [\n",
    "x: &a\n  k: \"a\\'b\"\ny: *a\nz: {<<: *a}\n",
    'x: &a\n  k: "a\\/b"\ny: *a\n',
    'data:\n  k: !!str "a\\/b"\n',
    'data:\n  ? "a\\/b"\n  : c\n',
    # "\/" where it is no escape, in a document the block-style reader declines
    "data:\n  k: a\\/b\n  j: 'a\\/b'\n  l: |\n    \"a\\/b\"\n  m: {x: y} # \"\\/\"\n",
    "data:\n  k: a\\'b\n  j: 'a\\'\n  m: {x: y}\n",
]


def _ours(path: pathlib.Path) -> str:
    """What kubelite prints for the file, or its error as kubectl words it."""
    try:
        return "".join(to_json(m.obj) for m in read_sources([str(path)], validate=False, verb="patch"))
    except ManifestError as exc:
        return f"error: {exc}"


def _theirs(done: subprocess.CompletedProcess) -> str:
    return done.stdout if done.returncode == 0 else done.stderr.strip()


def _check(texts: list[str], tmp_path: pathlib.Path) -> None:
    """Those of the texts kubelite takes are read by kubectl in one run, to the same bytes; each
    of the others is refused by kubectl alone, with kubelite's message."""
    taken, refused = [], []
    for text in texts:
        path = tmp_path / "one.yaml"
        path.write_text(text, encoding="utf-8", newline="")
        (refused if _ours(path).startswith("error: ") else taken).append(text)
    path = tmp_path / "taken.yaml"
    path.write_text("---\n".join(taken), encoding="utf-8", newline="")
    done = _kubectl_json(path)
    if done.returncode != 0 or _ours(path) != done.stdout:
        for text in taken:  # name the document that differs
            path.write_text(text, encoding="utf-8", newline="")
            assert _ours(path) == _theirs(_kubectl_json(path)), text
    assert (done.returncode, _ours(path)) == (0, done.stdout)
    for text in refused:
        path = tmp_path / "refused.yaml"
        path.write_text(text, encoding="utf-8", newline="")
        assert _ours(path) == _theirs(_kubectl_json(path)), text


@pytest.mark.parametrize("form", range(len(FORMS)))
def test_escapes_read_as_kubectl(form, tmp_path):
    texts = _documents()[form * len(ESCAPES):(form + 1) * len(ESCAPES)]
    _check(texts, tmp_path)


def test_escapes_beside_other_errors_as_kubectl(tmp_path):
    _check([HEAD.format(i=i) + body for i, body in enumerate(MIXED)], tmp_path)


def test_kubelite_refuses_what_kubectl_refuses(tmp_path):
    """Not a vacuous comparison: "\\/" is refused and "\\'" taken, by both readers."""
    path = tmp_path / "f.yaml"
    for form in FORMS:
        path.write_text((HEAD + form).format(i=0, e="/"))
        assert "found unknown escape character" in _ours(path)
        path.write_text((HEAD + form).format(i=0, e="'"))
        data = read_sources([str(path)], validate=False)[0].obj["data"]
        assert any("'" in s for s in [*data, *data.values()])


# -- every command that reads manifests: kubectl's message, exit status 1, nothing written --

GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\ndata:\n  k: \"a\\'b\"\n"
BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  k: \"a\\/b\"\n"


@pytest.mark.parametrize("verb", ["apply", "create"])
def test_commands_refuse_the_escape_and_write_nothing(verb, tmp_path):
    kubelite = CLI(tmp_path, kubelite_argv())  # against its embedded cluster
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    done = CLI(tmp_path, [KUBECTL, "--kubeconfig", "/dev/null"]).run(verb, "-f", str(bad))
    assert done.returncode == 1
    ours = kubelite.run(verb, "-f", str(bad))
    assert (ours.returncode, ours.stdout, ours.stderr) == (1, "", done.stderr)
    # the good document before it is not written either
    stream = tmp_path / "stream.yaml"
    stream.write_text(GOOD + "---\n" + BAD)
    ours = kubelite.run(verb, "-f", str(stream))
    assert (ours.returncode, ours.stdout) == (1, "") and "line 13: found unknown escape character" in ours.stderr
    listed = kubelite.run("get", "configmaps", "-o", "name")
    assert listed.returncode == 0 and "configmap/good" not in listed.stdout.split()
    # and "\\'" is taken
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    assert kubelite.run(verb, "-f", str(good)).returncode == 0
    assert kubelite.run("get", "configmap", "good", "-o", "jsonpath={.data.k}").stdout == "a'b"


def test_kustomization_refuses_the_escape_as_kubectl(tmp_path):
    # (its resources are read by kubelite.kustomize.yamlv3, go-yaml v3's reader, not this one)
    root = tmp_path / "k"
    root.mkdir()
    (root / "cm.yaml").write_text(GOOD)
    (root / "kustomization.yaml").write_text('resources:\n- cm.yaml\nnamePrefix: "p\\/"\n')
    done = CLI(tmp_path, [KUBECTL, "--kubeconfig", "/dev/null"]).run("kustomize", str(root))
    ours = CLI(tmp_path, kubelite_argv()).run("kustomize", str(root))
    assert done.returncode == 1 and "found unknown escape character" in done.stderr
    assert (ours.returncode, ours.stdout) == (1, "")
    # klog's prefix carries a time and a process id
    assert ours.stderr.split("]", 1)[1] == done.stderr.split("]", 1)[1]
