"""JSONPath against recorded kubectl v1.32 output (runs without kubectl).

tests/data/reference/jsonpath/pod-cases.json was recorded by running
`kubectl patch --local -f pod.json -p {} --type merge -o jsonpath=TEMPLATE`
for every template of the differential corpus on one multi-container Pod.
"""

import json
from pathlib import Path

import pytest

from kubelite.manifest import jsonpath

DATA = json.loads((Path(__file__).parent.parent / "data" / "reference" / "jsonpath" / "pod-cases.json").read_text())


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: ("strict:" if not c["allowMissingKeys"] else "") + c["template"])
def test_recorded_case(case):
    try:
        out, err, code = jsonpath.render(case["template"], DATA["object"], case["allowMissingKeys"]), "", 0
    except jsonpath.JSONPathError as error:
        out, err, code = "", error.stderr(), 1
    assert (code, out, err) == (case["exitCode"], case["stdout"], case["stderr"])


def test_find_results_groups_per_action():
    results = jsonpath.find_results("{.metadata.name}{.spec.containers[*].name}", DATA["object"])
    assert results == [["multi"], ["app", "sidecar", "logger"]]


def test_parse_error_keeps_bare_reason():
    with pytest.raises(jsonpath.JSONPathError) as err:
        jsonpath.parse("{.a")
    assert err.value.reason == "unclosed action"
    assert str(err.value) == "error parsing jsonpath {.a, unclosed action"


@pytest.mark.parametrize(
    "value, text",
    [(1234567.5, "1.2345675e+06"), (1e-05, "1e-05"), (1e21, "1e+21"), (123456.5, "123456.5"), (1e20, "1e+20"),
     (0.5, "0.5"), (1e-07, "1e-07"), (10**23, "1e+23")],
)
def test_float_printing_matches_kubectl(value, text):
    # Recorded: kubectl printed these spec.* floats through -o jsonpath (see the module notes).
    assert jsonpath.render("{.v}", {"v": value}) == text


def test_float_json_matches_kubectl():
    obj = {"a": 1234567.5, "b": 0.00001, "c": 1e21, "d": 123456.5, "e": 1e20, "g": 0.5, "h": 1e-7, "i": 10**23}
    expected = '{"a":1234567.5,"b":0.00001,"c":1e+21,"d":123456.5,"e":100000000000000000000,"g":0.5,"h":1e-7,"i":1e+23}'
    assert jsonpath.render("{.spec}", {"spec": obj}) == expected
