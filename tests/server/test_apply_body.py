"""An apply patch body that is plain JSON is read with the JSON reader, and gives exactly what
the YAML reader (kube-apiserver reads apply bodies as YAML) gives; anything where the two could
differ is left to the YAML reader."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.manifest._goyaml import decode_yaml
from kubelite.server.fieldmanager.applybody import _plain_json, decode

text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=8)
scalars = st.none() | st.booleans() | st.integers(-2 ** 64, 2 ** 64) | st.floats(allow_nan=False) | text
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
                      max_leaves=20)


def _ordered(value):
    """The value with its maps as item lists: equal only if the keys come in the same order."""
    if isinstance(value, dict):
        return [("map", k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return ["list", *map(_ordered, value)]
    return (type(value).__name__, value)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(text, values, max_size=6), st.sampled_from([None, 1]))
def test_plain_json_reads_as_yaml_does(doc, indent):
    body = json.dumps(doc, indent=indent)
    fast = _plain_json(body)
    if fast is not None:
        assert _ordered(fast) == _ordered(decode_yaml(body))
    assert _ordered(decode(body.encode())) == _ordered(decode_yaml(body) or {})


def test_what_json_and_yaml_read_differently_goes_to_yaml():
    for body in ['{"a":1.0}', '{"a":1e3}', '{"a":9223372036854775808}', '{"a":"x\\/y"}', '{"a":"\\u00e9"}',
                 '{"a":\t1}', '{"<<":{"a":1}}', '{"a":"\u2028"}', '{"a":1}\n---\n{"b":2}', '{"a":NaN}', '[1]']:
        assert _plain_json(body) is None, body


def test_kubectls_bodies_take_the_json_reader():
    body = ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},'
            '"data":{"k":"v"},"n":[1,-2,9223372036854775807],"b":true,"z":null,"a":{"k":1,"k":2}}')
    fast = _plain_json(body)
    assert fast is not None and _ordered(fast) == _ordered(decode_yaml(body))
    assert list(fast["a"].items()) == [("k", 2)]
