"""The Go runtime pieces the strategic merge patch engine reproduces (sorts, %v, json.Marshal)."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.patch import _smp_go as go

keys = st.lists(st.sampled_from(["a", "b", "c", "10", "9", "", "ab"]), max_size=60)


@settings(max_examples=300, deadline=None)
@given(keys)
def test_sort_by_string_sorts(items):
    tagged = [(k, i) for i, k in enumerate(items)]
    out = go.sort_by_string(tagged, lambda kv: kv[0])
    assert [k for k, _ in out] == sorted(items)
    assert sorted(out) == sorted(tagged)  # a permutation


def test_short_slices_put_equal_keys_in_reverse_arrival_order():
    # Go's insertion sort with Less = "<=" (the smp README documents this for N).
    items = [("b", 0), ("a", 1), ("b", 2), ("a", 3)]
    assert go.sort_by_string(items, lambda kv: kv[0]) == [("a", 3), ("a", 1), ("b", 2), ("b", 0)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 8), max_size=90))
def test_stable_sort_is_stable_for_a_strict_order(items):
    data = [(v, i) for i, v in enumerate(items)]
    go.stable_sort(data, lambda x, y: x[0] < y[0])
    assert data == sorted(((v, i) for i, v in enumerate(items)), key=lambda p: p[0])


def test_dedupe_keeps_go_order():
    # A duplicate is overwritten by the last element: [a b a c] -> [a b c], [a a b] -> [a b].
    assert go.dedupe_scalars(["a", "b", "a", "c"]) == ["a", "b", "c"]
    assert go.dedupe_scalars(["x", "y", "x", "z", "w"]) == ["x", "y", "w", "z"]
    assert go.dedupe_scalars([1, 1.0, True, "1"]) == [1, 1.0, True, "1"]  # distinct Go values


def test_fmt_v():
    # Seen in kubectl's own error text (test_strategic_kubectl_diff.py::test_values_match_kubectl).
    assert go.fmt_v([1e6, 1000000.5, 1e21, 1e-5, 0.0001, 123456.0, -0.0, 2**63]) == \
        "[1e+06 1.0000005e+06 1e+21 1e-05 0.0001 123456 -0 9.223372036854776e+18]"
    assert go.fmt_v({"b": [1, {"c": None}], "a": True}) == "map[a:true b:[1 map[c:<nil>]]]"


def test_marshal_matches_go_json():
    value = {"b": [1.0, 1e21, 1e-7, 2.5, 9223372036854775807], "a": "<&>\u2028é"}
    assert go.marshal(value) == '{"a":"\\u003c\\u0026\\u003e\\u2028é","b":[1,1e+21,1e-7,2.5,9223372036854775807]}'
    assert json.loads(go.marshal(value)) == value


# encoding/json as kubectl 1.32 writes a last-applied annotation (checked against
# `kubectl create --dry-run=client --save-config` of a ConfigMap holding b\bc\fd<e):
# \n \r \t short, other control characters and \b \f as \u00XX, HTML and line separators escaped
_GO_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
_GO_HEX = set(map(chr, range(0x20))) | {"<", ">", "&", "\u2028", "\u2029"}


@given(st.text(alphabet=st.sampled_from([chr(i) for i in range(0x80)] + ["\u2028", "\u2029", "é", "😀"]),
               max_size=8))
@settings(max_examples=500, deadline=None)
def test_strings_are_quoted_as_go_json(text):
    expected = "".join(_GO_SHORT.get(ch) or (f"\\u{ord(ch):04x}" if ch in _GO_HEX else ch) for ch in text)
    assert go.marshal(text) == f'"{expected}"'


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**64, max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from([chr(i) for i in range(0x80)] + ["\u2028", "\u2029", "é", "😀"]),
              max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)


@given(_json_values)
@settings(max_examples=500, deadline=None)
def test_marshal_writes_every_document_as_the_walk_does(value):
    # the C encoder's fast way (plain documents) and the walk (Go's floats, wide integers, \b \f)
    # agree: the walk is what the tests above hold to Go's encoding/json
    assert go.marshal(value) == go._marshal_walk(value)


def test_marshal_of_a_document_deeper_than_the_encoders_recursion():
    value: object = "x"
    for _ in range(5000):
        value = [value]
    assert go.marshal(value) == "[" * 5000 + '"x"' + "]" * 5000


def test_decoded_capacity_follows_append_growth():
    assert [go.decoded_capacity(n) for n in (0, 1, 2, 3, 5, 9, 200, 257)] == [0, 1, 2, 4, 8, 16, 256, 512]
