"""The block-style YAML reader against libyaml's reader and against kubectl.

_goyaml_block reads the documents most manifests are (block mappings and sequences of
one-line scalars) and declines everything else to _goyaml_libyaml. What it takes it must
read exactly as the libyaml reader does: the same values of the same types (True is not 1,
1 is not 1.0) with keys in the same order; what it declines must still decode (or fail)
as before. kubectl has the last word on the documents it takes.
"""
from __future__ import annotations

import math
import os
import pathlib
import random
import shutil
import subprocess

import pytest

from kubelite.manifest import _goyaml, _goyaml_libyaml, read_sources, to_json
from kubelite.manifest._goyaml_block import NOT_BLOCK, decode_block
from kubelite.manifest.documents import _split_at_separators, _split_lines
from kubelite.manifest.errors import ManifestError

KUBECTL = "/usr/bin/kubectl"

# Each is taken by the block reader.
BLOCK_DOCUMENTS = [
    "a: b\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    app: web\ndata:\n  k: v\n",
    # an indentless sequence as a mapping value, items that are mappings, nested sequences
    "spec:\n  containers:\n  - name: c\n    image: nginx:1.25\n    args:\n    - --port=80\n    - -v\n  - name: d\n",
    "l:\n    -   a: 1\n        b: 2\n    -   c\n",
    "- a\n- b: 1\n  c:\n  - x\n-\n- 'q'\n",
    # scalars that resolve: booleans, null, numbers (octal, hex, underscores, floats, past int64)
    "yes: no\non: off\ny: n\nTrue: FALSE\nt: ~\nu: null\nv: Null\nw:\n",
    "n: 1\nm: -1\no: 017\nh: 0x1F\nb: 0b101\nu: 1_000\nf: 1.5\ne: 1e3\nd: .5\nbig: 12345678901234567890\n"
    "bigger: 123456789012345678901234567890\nzero: 0\nneg0: -0.0\nint64: 9223372036854775807\n",
    "0: a\n1e3: b\n0x10: c\n1.5: d\nyes: e\nno: f\n3.4e38: g\n",
    # strings that look like other things but are not
    "a: 2001-12-14\nb: 1:20\nc: nginx:1.25\nd: http://example.com/a#b\ne: a#b\nf: -x\ng: ?x\nh: :x\n"
    "i: a[b]{c},d\nj: <<\nk: =\nl: .inf_\nm: 0x\nn: 08\no: '1'\np: \"2\"\n",
    # quoted keys and values, empty ones, comments in every place, trailing spaces
    "'q''k': 'it''s'\n\"d k\": \"x y\"\n'': ''\n\"\": e\n",
    "# head\na: 1 # one\n  # indented comment\nb: # nothing yet\n  c: 2   \n\n\nd: 'x'  # q\ne: {} # m\nf: []\n",
    "a:    \n  b:   c   \n",
    # empty collections, keys of unusual characters, duplicates (the last value, the first place)
    "a: {}\nb: []\nc:\n- {}\n- []\n",
    "a b: 1\nk8s.io/x: 2\n\u00e9: \u65e5\u672c\na: 3\n\U0001F600: x\n",
    "a: 1\nb: 2\na: 3\n",
    # plain scalars over several lines (as go-yaml prints long ones): folded, empty lines kept
    "a: b c\n  d e\n\n  f\n\n\n  g\nx:\n- y\n  z\n- yes\n  no\n- 1\n  2\nk: 0x1F\n  # c\nm: 1\n",
    "- a: long\n   text\n  b: x\n",
    # single-quoted scalars over several lines, literal scalars (what kubectl prints for text)
    "a: 'x ''\n  y''\n\n  z  '  # c\nb: 1\n",
    "- 'x\n  y'\n- z\n",
    "a: |\n  x\n    y:\n\n  - z # not a comment\nb: |-\n  x\n\n\nc:\n- |\n\n  x\n   \n     \n- 1\n",
    "k:\n- a: |\n    x: 1\n  b: 2\n",
    # double-quoted scalars with go-yaml's escapes (libyaml has no \')
    "a: \"x y \\x41\\u00e9\\U0001F600 \\N\\_\\L\\P\\e\\0\\a\\b\\t\\n\\v\\f\\r\\ \\'\\\\\\\"\"\n\"k\\tq\": 1\n",
    # indented document, document of comments only, empty document
    "  a: 1\n  b:\n    c: 2\n",
    "# only\n# comments\n",
    "",
    "\n\n",
]

# Each is declined to the libyaml reader (which decodes it or words its error).
DECLINED_DOCUMENTS = [
    "a: >\n  folded\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: \"\\q\"\n", "a: \"x\\/y\"\n", "a: \"\\uD800\"\n", "a: \"\\x4\"\n", "a: \"x\\\n  y\"\n",
    "a: b\n  c: d\n", "a: b\n  - c\n", "a: b\n  # c\n  d\n", "a: b\n\n  # c\n  d\n", "- a\n  b: c\n",
    "a: |+\n  x\n\n", "a: |2\n   x\n", "a: >\n  x\n", "a: | # c\n  x\n", "a: |\n    \n  x\n", "a: |\nb: 1\n",
    "a: |\n  x", "a: 'x\n  y'z\n", "a: 'x\ny'\n", "- 'a\n  b': c\n", "a: 'x\n  y: z'\n", "a: 'x\n  - y'\n",
    "a: 'b'\n  c\n", "a: b #c\n  d\n", "a: b\n  c # d\n", "a:\n  b\n", "- - a\n", "a: {b: 1}\n", "a: [1, 2]\n", "<<: {a: 1}\n",
    "a:\tb\n", "a: b: c\n", "a:\n  - b\n  c: 1\n", "a: 1\n b: 2\n",
    "a:\n    b: 1\n  c: 2\n", "---\na: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n", "? a\n: b\n",
    "a: .inf\n", "null: 1\n", "18446744073709551615: x\n", "k" * 1100 + ": v\n", "scalar\n",
    "a: 1 #c\nb:c\n", "a: 'x'y\n", "a: 'x'#c\n", "a: \x85\n", "a: \u2028\n", "\ufeffa: 1\n", "a: b\x7f\n",
]

TOKENS = ["word " * 20, "a", "yes", "No", "~", "null", "1", "-1", "0x1F", "017", "1.5", ".inf", "1e400", "<<", "-", "-a", "?",
          ":a", "a:b", "a: b", "a:", "#", "a #b", "a#b", "'q'", "'a''b'", "''", "'a", '"d"', '"a\\nb"', "{}", "[]",
          "{a}", "a[b]", ",", "&x", "*x", "!t", "|", ">", "%", "@", "...", "---", "\u00e9", "\t", " ", "a b",
          "true", "2001-12-14", "1:20", "'x' #c", "{} #c", "[]#c", "\u00a0", "\x85", "\r", "08", "-0.0"]


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)  # type: ignore[call-overload]
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


def _outcome(decode, text: str) -> tuple:
    try:
        return ("value", decode(text))
    except _goyaml.DecodeError as exc:
        return ("error", exc.message, exc.line)


def _agree(text: str) -> bool:
    got, want = _outcome(_goyaml.decode_yaml, text), _outcome(_goyaml_libyaml.decode_yaml, text)
    return got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "value" else got == want)


@pytest.mark.parametrize("text", BLOCK_DOCUMENTS)
def test_block_documents_read_as_libyaml_reads_them(text):
    value = decode_block(text)
    assert value is not NOT_BLOCK
    assert _same(value, _goyaml_libyaml.decode_yaml(text))


@pytest.mark.parametrize("text", DECLINED_DOCUMENTS)
def test_other_documents_are_left_to_libyaml(text):
    assert decode_block(text) is NOT_BLOCK
    assert _agree(text)


def _random_line(rng: random.Random) -> str:
    indent = " " * rng.choice([0, 0, 1, 2, 2, 2, 3, 4, 4, 6])
    if rng.random() < 0.1:
        return indent + rng.choice(["", "# c"])
    dashes = "".join("-" + " " * rng.choice([0, 1, 1, 2]) for _ in range(rng.choice([0, 0, 0, 1, 1, 2])))
    if rng.random() < 0.6:
        value = rng.choice(TOKENS) if rng.random() < 0.7 else ""
        separator = rng.choice([":", ": ", ": ", " : ", ":  "])
        return indent + dashes + rng.choice(TOKENS) + separator + value + rng.choice(["", "", " "])
    return indent + dashes + rng.choice(TOKENS)


def _random_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice(TOKENS + [1, -5, 2.5, True, None, ""])
    if roll < 0.7:
        return {rng.choice(TOKENS): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _random_text(rng: random.Random) -> str:
    lines = ["a", "b: c", "- d", "  e", "", "x y", "  - z: 1", "\u00e9", "# f", "k: |", "it's", "   "]
    return "\n".join(rng.choice(lines) for _ in range(rng.randint(1, 5))) + rng.choice(["", "\n"])


def _random_documents(count: int):
    """Documents of random lines, and printed values with a line or two changed."""
    from kubelite.manifest import to_yaml

    rng = random.Random(20261128)
    for _ in range(count):
        if rng.random() < 0.4:
            yield "\n".join(_random_line(rng) for _ in range(rng.randint(1, 7))) + "\n"
            continue
        value = _random_text(rng) if rng.random() < 0.3 else _random_value(rng)
        try:
            lines = to_yaml({"k": value, "l": [_random_value(rng)]}).split("\n")
        except ManifestError:  # a key kubectl's printer refuses
            continue
        for _ in range(rng.choice([0, 1, 2])):
            i = rng.randrange(len(lines))
            roll = rng.random()
            if roll < 0.3:
                lines[i] = " " + lines[i]
            elif roll < 0.5:
                lines[i] = lines[i][1:]
            elif roll < 0.7:
                lines.insert(i, _random_line(rng))
            else:
                cut = rng.randrange(len(lines[i]) + 1)
                lines[i] = lines[i][:cut] + rng.choice(TOKENS) + lines[i][cut:]
        yield "\n".join(lines)


def test_random_documents_read_as_libyaml_reads_them():
    taken = 0
    for text in _random_documents(3000):
        assert _agree(text), text
        taken += decode_block(text) is not NOT_BLOCK
    assert taken > 300  # the block reader did take a good share of them


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
def test_block_documents_read_as_kubectl_reads_them(tmp_path: pathlib.Path):
    texts = [text for text in BLOCK_DOCUMENTS if text.strip() and not text.startswith("-")]
    objects = [f"apiVersion: v1\nkind: Block\nmetadata:\n  name: b{i}\nspec:\n"
               + "".join("  " + line + "\n" for line in text.splitlines()) for i, text in enumerate(texts)]
    path = tmp_path / "block.yaml"
    path.write_text("---\n".join(objects), encoding="utf-8")
    assert all(decode_block(text) is not NOT_BLOCK for text in objects)
    env = dict(os.environ, KUBECONFIG="/dev/null")
    done = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge", "-o", "json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "".join(to_json(m.obj) for m in read_sources([str(path)], validate=False)) == done.stdout


def _split(split, text: str):
    try:
        return split(text, "s")
    except ManifestError as exc:
        return str(exc), exc.line


def test_streams_split_at_separators_as_line_by_line():
    rng = random.Random(7)
    pieces = ["---", "--- # c", "---  ", "--- x", "----", "a: 1", "", " ---", "b", "# c", "---\u00a0"]
    for _ in range(5000):
        text = "\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) + rng.choice(["", "\n", "\n\n"])
        assert _split(_split_at_separators, text) == _split(_split_lines, text), text


def test_block_documents_are_read_without_pyyaml(tmp_path: pathlib.Path):
    """PyYAML's import (~10 ms here) is paid only for a document the block reader leaves to
    libyaml, and the reader needs no dataclasses (~5 ms with inspect)."""
    import sys

    path = tmp_path / "objects.yaml"
    path.write_text("---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  text: |\n"
                                 f"    line\n  note: 'a long\n    note'\n" for i in range(3)), encoding="utf-8")
    probe = ("import sys; from kubelite.manifest import read_sources; "
             f"objs = read_sources([{str(path)!r}]); "
             "print(len(objs), objs[2].obj['data'], [m for m in ('yaml', 'dataclasses') if m in sys.modules])")
    flow = tmp_path / "flow.yaml"
    flow.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\n", encoding="utf-8")
    then = (f"; read_sources([{str(flow)!r}]); print('yaml' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe + then], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3 {'text': 'line\\n', 'note': 'a long note'} []\nTrue\n"
