"""Typed decoding (kubelite.server.typecheck): the recorded 400s are replayed in
test_admission_integration_errors; here, that odd shapes never escape as anything but a
decode message, and well-typed recorded inputs pass."""
from __future__ import annotations

import pathlib

import pytest
from hypothesis import given, settings, strategies as st

from kubelite import schema
from kubelite.server import typecheck

DEFAULTS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "defaults"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["spec", "metadata", "data", "replicas", "containers", "resources", "limits", "cpu",
                         "ports", "labels", "template", "targetPort", "creationTimestamp", "x"]), inner, max_size=4),
    max_leaves=12)


@pytest.mark.parametrize("api_version, kind", [("apps/v1", "Deployment"), ("v1", "Pod"), ("v1", "ConfigMap"),
                                               ("v1", "Service"), ("v1", "Secret")])
@settings(max_examples=60, deadline=None)
@given(value=json_values)
def test_any_shape_is_accepted_or_a_decode_error(api_version, kind, value):
    try:
        typecheck.check({"spec": value, "metadata": value, "data": value} if not isinstance(value, dict) else value,
                        schema.for_kind(api_version, kind))
    except typecheck.DecodeError as err:
        assert str(err)


def _recorded_inputs():
    import yaml

    for path in sorted(DEFAULTS.glob("*.in.yaml")):
        for obj in yaml.safe_load_all(path.read_text()):
            if isinstance(obj, dict) and obj.get("kind"):
                yield pytest.param(obj, id=f"{path.name}:{obj['kind']}")


@pytest.mark.parametrize("obj", list(_recorded_inputs()))
def test_recorded_accepted_inputs_pass(obj):
    found = schema.for_kind(obj["apiVersion"], obj["kind"])
    if found is None:
        pytest.skip("custom kind")
    typecheck.check(obj, found)
