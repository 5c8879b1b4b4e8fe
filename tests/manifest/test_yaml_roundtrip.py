"""Properties of to_yaml / to_json that need no kubectl: what we print reads back unchanged."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.manifest import as_list, read_text, to_json, to_yaml

# strings kubectl's YAML printer itself cannot carry (raw NEL folds, C1 controls fail) are left out
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f\ufffe\uffff"
                                       + "".join(chr(c) for c in range(0x80, 0xA0))), max_size=30)
_NUMBERS = st.one_of(st.integers(-(2 ** 63), 2 ** 63 - 1), st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f + 0.0))  # -0 reads back as 0, as in kubectl
# kubectl (and so to_yaml) prints a "<<" key plain, which reads back as a merge key
_KEYS = _TEXT.filter(lambda k: k != "<<")
_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), _NUMBERS, _TEXT),
                       lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
                       max_leaves=15)
_OBJECTS = st.dictionaries(_KEYS, _VALUES, max_size=6).map(
    lambda spec: {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "x"}, "spec": spec})


def _same_numbers(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(_OBJECTS)
def test_yaml_reads_back_to_the_same_object(obj):
    back = read_text(to_yaml(obj), "printed.yaml")
    assert len(back) == 1
    assert to_json(back[0].obj) == to_json(obj)


@settings(max_examples=300, deadline=None)
@given(_OBJECTS)
def test_json_reads_back_to_the_same_object(obj):
    text = to_json(obj)
    assert json.loads(text) is not None
    back = read_text(text, "printed.json")
    assert to_json(back[0].obj) == text


def test_json_layout_and_escapes():
    obj = {"b": [], "a": {}, "c": [1, {"d": "<&>\u2028é\x01\x7f"}], "e": 1.5e-7, "f": 1e21, "g": 1e20}
    assert to_json(obj) == (
        '{\n    "a": {},\n    "b": [],\n    "c": [\n        1,\n        {\n'
        '            "d": "\\u003c\\u0026\\u003e\\u2028é\\u0001\x7f"\n        }\n    ],\n'
        '    "e": 1.5e-7,\n    "f": 1e+21,\n    "g": 100000000000000000000\n}\n')


def test_yaml_layout():
    obj = {"kind": "K", "list": [{"a": 1, "b": [1, 2]}, [3, [4]], {}, []], "map": {"x": {"y": None}},
           "text": "a\nb\n", "empty": ""}
    assert to_yaml(obj) == (
        'empty: ""\nkind: K\nlist:\n- a: 1\n  b:\n  - 1\n  - 2\n- - 3\n  - - 4\n- {}\n- []\n'
        "map:\n  x:\n    \"y\": null\ntext: |\n  a\n  b\n")


def test_as_list_shape():
    objs = [{"kind": "A"}, {"kind": "B"}]
    assert as_list(objs) == {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}
    assert to_yaml(as_list([])) == 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'
