"""The YAML reader against kubectl: what kubectl makes of tricky YAML is what we read.

Each YAML text goes into one multi-document file; kubectl prints the objects
it read (`patch --local -p {} -o json`) and our reader's objects, printed with
to_json, must give the same bytes. Error cases compare kubectl's message.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

from kubelite.manifest import ManifestError, read_sources, to_json

KUBECTL = "/usr/bin/kubectl"
pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed"),
]

SCALARS = [
    "yes", "Yes", "YES", "yEs", "no", "No", "NO", "y", "Y", "n", "N", "on", "On", "ON", "off", "Off", "OFF",
    "true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "null", "Null", "NULL", "nULL", "~", "",
    "1", "-1", "+1", "0", "-0", "+0", "00", "007", "08", "09", "0o17", "0O17", "0x1F", "0X1f", "-0x1F",
    "+0x1F", "0b101", "-0b101", "0B11", "1_000", "1__0", "_1", "1_", "0x_1F", "1.0", "1.", ".5", "-.5",
    "+.5", "1e3", "1E3", "1e+3", "1e-3", "1.5e-7", "-1.5E+07", ".5e3", "1_0.5", "._5", ".5_0", "1e400",
    "-1e400", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
    "0x7FFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF", "1:20", "1:20:30.5", "-1:20",
    "190:20:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2002-12-14",
    "2001-13-14", ".inf_", "+.inf", "-.Inf", "<<", "=", "0.", "-", "+", ".", "1e", "e3", "0x", "0o8",
    "12e", "3.14.15", "1,000", "$1", "1 2", "'quoted'", '"dq"', "!!str 12", "!!int '12'", "!!float 3",
    "!!bool yes", "!!str yes", "!!null ''", "!!binary aGVsbG8=", "!custom 5", "!!timestamp 2001-12-14",
    "|\n  literal\n  text", ">\n  folded\n  text", "|-\n  stripped", "|+\n  kept\n\n", "&a 5",
]

MAPPINGS = [
    # key conversion: booleans, numbers, floats (32-bit formatting), merge keys, duplicates
    "yes: 1\nno: 2\non: 3\nn: 4\nY: 5\n",
    "1: a\n0x10: b\n1.5: c\n1e3: d\n3.14159265358979: e\n0.1: f\n1e7: g\n-2: h\n1_0: i\n1e39: j\n-1e39: k\n3.4e38: l\n",
    "a: 1\na: 2\n",
    "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
    "b1: &b1 {x: 1, y: 1}\nb2: &b2 {y: 2, z: 2}\nm:\n  <<: [*b1, *b2]\n  w: 0\n",
    "b1: &b1 {x: 1}\nm:\n  x: 0\n  <<: *b1\n",
    "list: &l [1, 2]\nother: *l\n",
    "2001-12-14: date key\n",
    "'true': quoted key\n\"1\": dq\n",
    "nested:\n- - a\n  - b\n- {c: d}\n",
    "tricky: \"tab\\there\\u00e9\\x41\\U0001F600\"\nsingle: 'it''s'\n",
    "multi: line one\n  continues here\nfolded: >-\n  a\n  b\n\n  c\n",
    "crlf: value\r\nnext: 2\r\n",
]


def _kubectl_json(path: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, KUBECONFIG="/dev/null")
    return subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", "json"],
                          capture_output=True, text=True, env=env, timeout=60)


def _document(i: int, body: str) -> str:
    indented = "".join("  " + line + "\n" for line in body.splitlines()) if body else ""
    return f"apiVersion: v1\nkind: Scalars\nmetadata:\n  name: d{i}\nspec:\n{indented}"


def _check_batch(texts: list[str], tmp_path: pathlib.Path) -> None:
    path = tmp_path / "batch.yaml"
    path.write_text("---\n".join(texts), encoding="utf-8", newline="")
    done = _kubectl_json(path)
    ours = read_sources([str(path)], validate=False)
    assert done.returncode == 0, done.stderr
    got = "".join(to_json(m.obj) for m in ours)
    if got != done.stdout:
        # narrow down to the first differing document
        for text in texts:
            single = tmp_path / "one.yaml"
            single.write_text(text, encoding="utf-8", newline="")
            want = _kubectl_json(single)
            mine = "".join(to_json(m.obj) for m in read_sources([str(single)], validate=False))
            assert mine == want.stdout, text
    assert got == done.stdout


def test_scalars_resolve_as_kubectl(tmp_path):
    texts = [_document(i, f"value: {s}\nlist:\n- {s}\n") for i, s in enumerate(SCALARS)]
    _check_each_or_error(texts, tmp_path)


def _check_each_or_error(texts: list[str], tmp_path: pathlib.Path) -> None:
    """Batch the texts kubectl accepts; for the rest, both sides must fail."""
    accepted = []
    batch = tmp_path / "probe.yaml"
    batch.write_text("---\n".join(texts), encoding="utf-8", newline="")
    if _kubectl_json(batch).returncode == 0:
        _check_batch(texts, tmp_path)
        return
    for text in texts:
        single = tmp_path / "probe-one.yaml"
        single.write_text(text, encoding="utf-8", newline="")
        done = _kubectl_json(single)
        if done.returncode == 0:
            accepted.append(text)
            continue
        with pytest.raises(ManifestError) as caught:
            read_sources([str(single)], validate=False)
        kubectl_message = done.stderr.strip().removeprefix("error: ")
        assert _same_error(str(caught.value), kubectl_message), (text, str(caught.value), kubectl_message)
    _check_batch(accepted, tmp_path)


def _same_error(ours: str, theirs: str) -> bool:
    # kubectl names the file by the path we gave; line numbers may be counted
    # from the file rather than from the document
    return ours.split(": yaml: ")[-1].split(" (line")[0] in theirs or ours == theirs


def test_mappings_read_as_kubectl(tmp_path):
    texts = [_document(100 + i, body) if not body.startswith("crlf") else
             _document(100 + i, body.replace("\r\n", "\n")).replace("\n", "\r\n") for i, body in enumerate(MAPPINGS)]
    _check_each_or_error(texts, tmp_path)


def test_seed_manifests_read_as_kubectl(tmp_path):
    import json

    from tests.conftest import DATA

    blocks = json.loads((DATA / "manifest" / "seed_yaml_blocks.json").read_text())
    texts = [b["yaml"] for b in blocks]
    _check_each_or_error(texts, tmp_path)


@pytest.mark.parametrize("text", [
    "a: [\n",
    "a: *x\n",
    "a: b: c\n",
    "a:\n  b: 1\n c: 2\n",
    'x: "abc\n',
    "apiVersion: v1\nkind: A\nx: .inf\n",
    "apiVersion: v1\nkind: A\nx: .nan\n",
    "apiVersion: v1\nkind: A\nx: !!int abc\n",
    "apiVersion: v1\nkind: A\n---x\n",
    "apiVersion: v1\nkind: A\n--- {a: 1}\n",
    "apiVersion: v1\nkind: A\nm:\n  <<: 5\n",
])
def test_syntax_errors_match_kubectl(text, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    done = _kubectl_json(path)
    with pytest.raises(ManifestError) as caught:
        read_sources([str(path)])
    if done.returncode == 0:
        pytest.fail(f"kubectl accepts {text!r} but we refuse it: {caught.value}")
    theirs = done.stderr.strip().removeprefix("error: ")
    assert _same_error(str(caught.value), theirs), (str(caught.value), theirs)


WHOLE_FILES = [
    "%YAML 1.1\n---\napiVersion: v1\nkind: A\n",
    "apiVersion: v1\nkind: A\n...\n",
    "apiVersion: v1  # trailing comment\nkind: A # c\nmetadata: {name: x}  \n",
    "apiVersion: v1\nkind: A\nspec:\n  ? complex\n  : value\n  ? [a, b]\n  : seqkey\n",
    "apiVersion: v1\nkind: A\nspec: !!map {a: 1}\nother: !!seq [1]\n",
    "apiVersion: v1\nkind: A\nspec:\n\tkey: tab\n",
    "apiVersion: v1\nkind: A\nspec: {a: 1, b: [x, {c: d}], 'e': \"f\"}\n",
    "apiVersion: v1\nkind: A\nspec: plain\n  multi line\n    scalar\n",
    "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n---\napiVersion: v1\nkind: B\n",
    "apiVersion: v1\nkind: A\n---\n{\"apiVersion\": \"v1\", \"kind\": \"B\", \"x\": 1.0}\n",
    "[{\"apiVersion\": \"v1\", \"kind\": \"A\"}]\n",
    "{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n[1]\n",
    "{\"apiVersion\": \"v1\", \"kind\": \"A\", \"x\": 12345678901234567890, \"y\": 1.0, \"z\": -0.0, \"w\": 1e2}\n",
    "apiVersion: v1\nkind: A\nx: &anchor\n  a: 1\ny: *anchor\nz: [*anchor, *anchor]\n",
    "apiVersion: v1\nkind: A\nx: &a 1\ny: &a 2\nz: *a\n",
    "apiVersion: v1\nkind: A\nlist:\n- &a {k: v}\n- <<: *a\n  k2: v2\n",
    "apiVersion: v1\nkind: A\nspec: |2\n    indented\n  less\n",
    "apiVersion: v1\nkind: A\nspec: >\n  folded\n  text\n\n  para\n",
    "apiVersion: v1\nkind: A\nkind: B\n",
    "apiVersion: v1\nkind: A\nitems: []\n",
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: C}\n- {apiVersion: v1, kind: D}\n",
]


@pytest.mark.parametrize("text", WHOLE_FILES)
def test_whole_files_read_as_kubectl(text, tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8", newline="")
    done = _kubectl_json(path)
    if done.returncode != 0:
        # kubectl prints the objects before a bad one; we refuse the whole input
        with pytest.raises(ManifestError) as caught:
            read_sources([str(path)], validate=False, verb="patch")
        theirs = done.stderr.strip().splitlines()[-1].removeprefix("error: ")
        assert _same_error(str(caught.value), theirs), (str(caught.value), theirs)
        return
    assert "".join(to_json(m.obj) for m in read_sources([str(path)], validate=False)) == done.stdout


BAD_JSON = [
    '{"apiVersion": "v1",\n "kind": "ConfigMap",}',
    '{"apiVersion": "v1" "kind": "A"}',
    '{"apiVersion" "v1"}',
    '{"a": [1, 2 3]}',
    '{"a": [1, 2,]}',
    '{"a": tru}',
    '{"a": "x',
    '{"a": "line\nbreak"}',
    '{"a": 1',
    '{"a": {"b": 1 "c": 2}}',
    '{"é": "ü" x}',
    # escapes that Go's JSON has not (YAML's), a short \u, one after a multi-byte character
    '{"a": "x\\/y\\q"}',
    '{"a": "\\x41"}',
    '{"a": "\\\'"}',
    '{"a": "\\u12G4"}',
    '{"a": "\\u12"}',
    '{"é": "é\\é"}',
    '{"apiVersion": "v1", "kind": "A"}\n{"b": "\\ "}',
]


@pytest.mark.parametrize("text", BAD_JSON)
def test_json_errors_match_kubectl(text, tmp_path):
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    done = _kubectl_json(path)
    assert done.returncode != 0
    with pytest.raises(ManifestError) as caught:
        read_sources([str(path)])
    assert "error: " + str(caught.value) == done.stderr.strip()
