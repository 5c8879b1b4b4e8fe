"""to_yaml / to_json against `kubectl patch --local -f F -p {} -o yaml|json`, byte for byte.

Objects are written to a JSON stream file, read back with the kubelite
reader, printed with to_yaml/to_json and compared with what kubectl prints
for the same file. kubectl prints one object after another without
separators, so a batch is identical when the concatenations are; a batch
that differs is re-run object by object to name the culprits.
"""
from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import subprocess

import pytest

from kubelite.manifest import _goyaml, read_sources, to_json, to_yaml
from kubelite.manifest.documents import split_yaml
from tests.conftest import CONFORMANCE, DATA

KUBECTL = "/usr/bin/kubectl"
pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed"),
]

TRICKY_STRINGS = [
    "", " ", "  ", "a", "yes", "Yes", "YES", "no", "y", "Y", "n", "N", "on", "off", "On", "OFF", "true",
    "True", "false", "FALSE", "null", "Null", "NULL", "~", "<<", "=", "1", "-1", "+1", "1.0", "1.5e3",
    "1e3", ".5", "5.", "0123", "0o17", "0x1F", "0b101", "1_000", "08", "09.5", "1:20", "-1:20:30",
    "190:20:30.15", "1:2", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10",
    "2001-12-14T21:59:43Z", "2001-13-14", "2001-02-30", "2001-12-14T21:59:43", "1e400", "-.inf",
    ".inf", ".NaN", ".nan", "nan", "inf", "Infinity", " a", "a ", " a ", "@x", "`x", "%x", "*a", "&a",
    "!x", "|", ">", "-", "--", "---", "--- a", "...", "....", "?", "? ", "?a", ":", ":a", "a:", "a: b",
    "a:b", "#", "a #b", "a#b", "#a", "- a", "-a", "[a]", "a[b]", "{a}", "a,b", ",", "'", "''", "a'b",
    '"', 'a"b', "\\", "a\\b", "tab\there", "\t", "a\t", "trail \nx", "a\n", "a\n\n", "\n", "\n\n",
    " \na", "a\nb", "a\n b", "a \nb", "a\n\nb\n", "  lead\nx\n", "x\n  indented\n", "\r", "a\r\nb",
    "\x01", "\x85", "a \x85 b", "a\x85\x85b", "\x85x\x85", "k\x85 \x85 \x85v", "\xa0", "a\xa0b", "é", "日本語", "😀", "a😀", "\u2028", "\u2029", "a\u2028b",
    "\ufeff", "\ufeffabc", "<b>&amp;</b>", "\u00e9t\u00e9 \u00e0", "x" * 79, "x" * 81,
    "word " * 30, ("word " * 30).strip(), "a  " + "b " * 50 + "c", "\"quoted\" " * 20, "it's " * 30,
    "line one\nline two is here\n" * 3, "spaces   inside", "ends with colon:", "k8s.io/name",
    "app.kubernetes.io/name", "-0", "+0", "0", "00", "0.0", "-0.0", "1e-7", "12345678901234567890",
    "123456789012345678901234567890", "3.14159", "0x", "0o", "0b", "1__0", "_1", "1_", "+", ".", "..",
    "./a", "/a", "%", "@", "`", "{}", "[]", "null null", "yes no",
    # folding of long lines in each style, at several depths
    "tab\t" + "word " * 25, "@" + "word " * 25, "'" + "it's " * 25, "a  b   " * 20 + "end",
    " lead " + "word " * 25, "word " * 25 + "trail ", "x" * 200, ("x" * 90 + " ") * 3 + "y",
    "word\t" * 30, "\x01" + " word" * 30, "é " * 60, "日本 " * 50, "- " + "word " * 25, "#" + " w" * 60,
    "line with trailing space \nnext line " + "word " * 20, "  indented first\nsecond\n",
    "\n\nleading breaks\n", "text\n\n\n", "crlf\r\nline\r\n", "a\u2028" + "b " * 50,
    "2001-12-14T21:59:43.1Z", "2001-12-14T21:59:43+01:00", "2001-1-1", "2001-12-14 1:2:3",
    "2001-12-14T25:00:00Z", "2001-12-14t1:2:3Z", "1970-01-01T00:00:00.123456789Z", "12:30", "-0:30",
]

TRICKY_KEYS = ["a", "B", "Z", "_x", "1", "9", "10", "a2", "a10", "a02", "a1", "é", "b", "Yes", "true",
               "null", "", " ", "a b", "k8s.io/x", "x" * 130, "multi\nline", "0", "00", "01", "a0", "a00",
               "-", "~", "<<", "ab1c", "ab01c", "AB", "aB", "a_b", "a-b", "a.b", "a/b", "[x]", "{x}"]

TRICKY_NUMBERS = [0, 1, -1, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 63 - 1, -(2 ** 63), 0.5, -0.5, 0.1, 1.5e-7,
                  1e-6, 1e-5, 0.0001, 123456.789, 999999.0, 1e6, 1234567.0, 1e20, 1e21, 1e22, 1.7976931348623157e308,
                  5e-324, 3.141592653589793, 2.5e15, 1.0e16, 123456789012.25]


def _object(name: str, body: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Tricky", "metadata": {"name": name}, "spec": body}


def tricky_objects() -> list[dict]:
    objs = [_object(f"s{i}", {"value": s, "list": [s], "nested": {"k": [{"v": s}], "deeper": {"d": {"e": [[s]]}}}})
            for i, s in enumerate(TRICKY_STRINGS)]
    objs.append(_object("keys", {k: i for i, k in enumerate(TRICKY_KEYS)}))
    objs.append(_object("numbers", {"n": TRICKY_NUMBERS, "m": {str(i): v for i, v in enumerate(TRICKY_NUMBERS)}}))
    objs.append(_object("shapes", {"emptyMap": {}, "emptyList": [], "nulls": [None, None], "bools": [True, False],
                                   "listOfLists": [[1, [2, []]], [], [{}]], "mapInList": [{"a": {"b": [{}]}}],
                                   "deep": {"a": {"b": {"c": {"d": ["x", {"e": "long " * 25}]}}}}}))
    objs.append(_object("longkeys", {"k" * 128: "v", "k" * 129: {"a": 1}, "q" * 140: ["x"],
                                     "m" * 100: "word " * 20, "é" * 70: "v", "é" * 60: "w",
                                     "multi\nline key": "v", "multi\nline\nkey": {"a": [1]}, "t\tkey": 1}))
    rng = random.Random(1234)
    alphabet = list("ab yn01:-#'\"\n\t.&*!|>%@`,[]{}?~\\é日😀\u2028\x01") + [" "] * 4
    for i in range(120):
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 3))]
        text = "".join(words) if i % 3 else " ".join(words) * rng.randint(1, 8)
        objs.append(_object(f"r{i}", {"value": text, text: [text, rng.uniform(-1e9, 1e9)]}))
    return objs


def seed_objects() -> list[dict]:
    blocks = json.loads((DATA / "manifest" / "seed_yaml_blocks.json").read_text())
    out = []
    for i, block in enumerate(blocks):
        for chunk, _line in split_yaml(block["yaml"], "seed"):
            value = _goyaml.decode_yaml(chunk)
            if value is None:
                continue
            if not (isinstance(value, dict) and value.get("kind") and value.get("apiVersion")) or "items" in value:
                value = _object(f"seed{i}", {"snippet": value})
            out.append(value)
    return out


def patch_case_objects() -> list[dict]:
    cases = json.loads((CONFORMANCE / "kubectl-patch" / "cases.json").read_text())["cases"]
    out = []
    for case in cases:
        original = case.get("original")
        if isinstance(original, dict) and original.get("kind") and original.get("apiVersion") \
                and "items" not in original:
            out.append(original)
    return out


def _kubectl(path: pathlib.Path, fmt: str) -> str:
    env = dict(os.environ, KUBECONFIG="/dev/null")
    done = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", fmt],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _compare(objs: list[dict], tmp_path: pathlib.Path, fmt: str) -> tuple[int, list[str]]:
    """Number of objects printed identically, and a report for the others."""
    printer = to_yaml if fmt == "yaml" else to_json
    path = tmp_path / f"batch-{fmt}.json"
    path.write_text("\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n", encoding="utf-8")
    read = [m.obj for m in read_sources([str(path)])]
    assert len(read) == len(objs)
    want = _kubectl(path, fmt)
    if "".join(printer(o) for o in read) == want:
        return len(objs), []
    failures = []
    same = 0
    for i, obj in enumerate(objs):
        single = tmp_path / f"one-{fmt}.json"
        single.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
        got = printer(read[i])
        expected = _kubectl(single, fmt)
        if got == expected:
            same += 1
        else:
            failures.append(f"{obj.get('metadata')}: kubectl {expected!r}\n ours {got!r}")
    return same, failures


CORPORA = {
    "tricky": tricky_objects,
    "seeds": seed_objects,
    "patch-cases": patch_case_objects,
}


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_printers_match_kubectl(corpus, fmt, tmp_path):
    objs = CORPORA[corpus]()
    assert objs
    same, failures = _compare(objs, tmp_path, fmt)
    assert not failures, f"{len(failures)} of {len(objs)} differ:\n" + "\n".join(failures[:10])
    assert same == len(objs)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_printed_list_reads_back_through_kubectl(fmt, tmp_path):
    """kubectl flattens the List we print into exactly the objects we put in."""
    from kubelite.manifest import as_list

    objs = tricky_objects()[:40]
    printed = (to_yaml if fmt == "yaml" else to_json)(as_list(objs))
    path = tmp_path / f"list.{fmt}"
    path.write_text(printed, encoding="utf-8")
    assert _kubectl(path, "json") == "".join(to_json(o) for o in objs)


UNPRINTABLE_IN_YAML = ["\x7f", "a\x80b", "\x9f", "\ufffe", "\uffff"]


@pytest.mark.parametrize("text", UNPRINTABLE_IN_YAML)
def test_yaml_refuses_what_kubectl_cannot_print(text, tmp_path):
    from kubelite.manifest import ManifestError

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_object("bad", {"v": text}), ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, KUBECONFIG="/dev/null")
    done = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", "yaml"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    obj = read_sources([str(path)])[0].obj
    with pytest.raises(ManifestError) as caught:
        to_yaml(obj)
    assert str(caught.value) in done.stderr
    # JSON has no such limit
    assert to_json(obj) == _kubectl(path, "json")


# -- hypothesis-chosen objects, a batch per example ------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f\ufffe\uffff"
                                       + "".join(chr(c) for c in range(0x80, 0xA0) if c != 0x85)), max_size=40)
_KEYS = _TEXT.filter(lambda k: "\x85" not in k)  # kubectl cannot print such keys as YAML
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 63), 2 ** 63 - 1),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT,
                     st.sampled_from(TRICKY_STRINGS[:120]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(_KEYS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.dictionaries(_KEYS, _VALUES, max_size=5), min_size=30, max_size=30))
def test_generated_objects_print_as_kubectl(specs):
    import tempfile

    objs = [_object(f"h{i}", spec) for i, spec in enumerate(specs)]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("yaml", "json"):
            same, failures = _compare(objs, pathlib.Path(tmp), fmt)
            assert not failures, "\n".join(failures[:5])
