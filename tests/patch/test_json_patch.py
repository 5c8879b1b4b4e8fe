"""kubelite.patch.json_patch against the json-patch-tests suite (RFC 6902), the same suite run
through the real kubectl (kubectl_compat), recorded kube-apiserver answers, and properties."""
from __future__ import annotations

import copy
import json
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import CONFORMANCE, DATA
from kubelite.patch import PatchError, json_patch

SUITES = ("tests.json", "spec_tests.json")


def _suite_cases():
    for suite in SUITES:
        for index, case in enumerate(json.loads((CONFORMANCE / "jsonpatch" / suite).read_text())):
            if "doc" not in case:  # comment-only records
                continue
            marks = [pytest.mark.skip(reason="disabled in the suite")] if case.get("disabled") else []
            yield pytest.param(case, id=f"{suite}[{index}]", marks=marks)


def _kubectl_cases():
    data = json.loads((CONFORMANCE / "kubectl-patch" / "jsonpatch_suite_via_kubectl.json").read_text())
    for case in data["cases"]:
        marks = [pytest.mark.skip(reason=case["skipped"])] if "skipped" in case else []
        yield pytest.param(case, id=f"{case['suite']}[{case['index']}]", marks=marks)


@pytest.mark.parametrize("case", list(_suite_cases()))
def test_rfc6902_suite(case):
    original = copy.deepcopy(case["doc"])
    if "error" in case:
        with pytest.raises(PatchError):
            json_patch.apply(case["doc"], case["patch"])
    else:
        result = json_patch.apply(case["doc"], case["patch"])
        if "expected" in case:
            assert result == case["expected"]
    assert case["doc"] == original, "the input document was modified"


@pytest.mark.parametrize("case", list(_kubectl_cases()))
def test_suite_through_kubectl(case):
    """kubectl_compat reproduces kubectl's output, or the text kubectl prints after 'error: '."""
    document, patch_text = case["wrapped_original"], case["wrapped_patch_text"]
    if case["exit_code"] == 0:
        assert json_patch.apply(document, patch_text, kubectl_compat=True) == json.loads(case["stdout"])
        return
    with pytest.raises(PatchError) as caught:
        json_patch.apply(document, patch_text, kubectl_compat=True)
    error = caught.value
    if case["exit_code"] == 2:  # kubectl crashed with a Go panic
        assert error.panic
        assert case["stderr"].startswith(str(error))
    else:
        assert not error.panic
        assert case["stderr"] == f"error: {error.kubectl_message()}\n"


def test_compat_error_structure():
    doc = {"spec": ["a"]}
    with pytest.raises(PatchError) as caught:
        json_patch.apply(doc, [{"op": "replace", "path": "/spec/x", "value": 1}], kubectl_compat=True)
    error = caught.value
    assert str(error) == ("replace operation does not apply: doc is missing key: /spec/x: "
                          "missing value")
    assert error.kubectl_message() == "Object to be patched is missing field (/spec/x: missing value)"
    assert error.path == "/spec/x" and error.op == "replace" and error.op_index == 0


# ---- recorded kube-apiserver answers (same library as kubectl) ------------------------------

def _recorded(name: str) -> tuple[list, int, dict]:
    """The JSON patch sent, the HTTP status and the JSON body of a recorded exchange."""
    text = (DATA / "reference" / "apiserver" / "errors" / f"{name}.txt").read_text()
    request = text.split("### REQUEST", 1)[1].split("### RESPONSE", 1)[0]
    response = text.split("### RESPONSE", 1)[1]
    patch = json.loads(request.strip().split("\n\n", 1)[1])
    status = int(re.search(r"HTTP/1.1 (\d+)", response).group(1))
    body = json.loads(response[response.index("\n{") + 1:])
    return patch, status, body


def test_server_replace_of_missing_member_adds_it():
    patch, status, body = _recorded("patch-jsonpatch-missing-path")
    assert status == 200
    before = copy.deepcopy(body)
    del before["data"]["nonexistent"]
    assert json_patch.apply(before, patch, kubectl_compat=True)["data"] == body["data"]
    with pytest.raises(PatchError):  # the RFC says the target must exist
        json_patch.apply(before, patch)


@pytest.mark.parametrize("name", ["patch-jsonpatch-remove-missing", "patch-jsonpatch-test-fails"])
def test_server_rejections(name):
    patch, status, _ = _recorded(name)
    _, _, live = _recorded("patch-jsonpatch-missing-path")
    del live["data"]["nonexistent"]
    assert status == 422
    with pytest.raises(PatchError):
        json_patch.apply(live, patch, kubectl_compat=True)


# ---- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize("operations", [{"op": "add", "path": "/a", "value": 1}, "{}", 5, ["add"]])
def test_operations_must_be_a_list_of_objects(operations, compat):
    with pytest.raises(PatchError):
        json_patch.apply({}, operations, kubectl_compat=compat)


@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize("text", ["[{", b"\xff\xfe", "not json", ""])
def test_operations_text_must_be_json(text, compat):
    with pytest.raises(PatchError, match="json patch"):
        json_patch.apply({}, text, kubectl_compat=compat)


def test_operations_as_text_and_bytes():
    text = '[{"op": "add", "path": "/a", "value": [1]}]'
    assert json_patch.apply({}, text) == {"a": [1]}
    assert json_patch.apply({}, text.encode()) == {"a": [1]}


def test_unknown_and_missing_op():
    with pytest.raises(PatchError, match='unknown op "spam"') as caught:
        json_patch.apply({}, [{"op": "spam", "path": "/a"}])
    assert caught.value.path == "/a"
    with pytest.raises(PatchError, match="missing 'op'"):
        json_patch.apply({}, [{"path": "/a"}])
    with pytest.raises(PatchError, match="Unexpected kind: spam"):
        json_patch.apply({}, [{"op": "spam", "path": "/a"}], kubectl_compat=True)


@pytest.mark.parametrize("pointer", ["/a/~2", "a", "/a~"])
def test_bad_pointer_syntax(pointer):
    with pytest.raises(PatchError, match="invalid 'path'"):
        json_patch.apply({"a": {}}, [{"op": "add", "path": pointer, "value": 1}])


def test_escapes_and_error_names_path():
    doc = {"a/b": {"m~n": 1}}
    assert json_patch.apply(doc, [{"op": "replace", "path": "/a~1b/m~0n", "value": 2}]) == {
        "a/b": {"m~n": 2}}
    with pytest.raises(PatchError) as caught:
        json_patch.apply(doc, [{"op": "remove", "path": "/a~1b/x"}])
    assert caught.value.path == "/a~1b/x"
    assert '"/a~1b/x"' in str(caught.value)


@pytest.mark.parametrize("index", ["00", "01", "-1", "+1", "1.0", " 1", "3", "-"])
def test_strict_array_indexes(index):
    with pytest.raises(PatchError):
        json_patch.apply({"a": [1, 2, 3]}, [{"op": "replace", "path": f"/a/{index}", "value": 0}])


def test_compat_array_index_quirks():
    """v4 accepts Atoi-style indexes: leading zeros, signs, negatives from the end."""
    doc = {"a": [1, 2, 3]}
    assert json_patch.apply(doc, [{"op": "replace", "path": "/a/01", "value": 0}],
                            kubectl_compat=True) == {"a": [1, 0, 3]}
    assert json_patch.apply(doc, [{"op": "remove", "path": "/a/-1"}],
                            kubectl_compat=True) == {"a": [1, 2]}
    assert json_patch.apply(doc, [{"op": "add", "path": "/a/-1", "value": 4}],
                            kubectl_compat=True) == {"a": [1, 2, 3, 4]}


def _nested(depth: int) -> dict:
    doc: dict = {}
    node = doc
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return doc


@pytest.mark.parametrize("compat", [False, True])
def test_depth_10000_document(compat):
    doc = _nested(10_000)
    pointer = "/a" * 10_000
    try:
        result = json_patch.apply(doc, [{"op": "test", "path": "", "value": doc},
                                        {"op": "add", "path": pointer + "/b", "value": 1}],
                                  kubectl_compat=compat)
    except PatchError as error:  # allowed, as long as it is a PatchError naming a path
        assert "deeply nested" in str(error) and error.path is not None
    else:
        node = result
        for _ in range(10_000):
            node = node["a"]
        assert node == {"b": 1}


def test_depth_10000_patch_text():
    # At Python's default recursion limit: a server raises it to take Go's depths (kubelite.godepth),
    # and an earlier test in this process may have made one.
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        text = '[{"op": "add", "path": "/a", "value": ' + "[" * 10_000 + "]" * 10_000 + "}]"
        with pytest.raises(PatchError, match="deeply nested"):
            json_patch.apply({}, text)
    finally:
        sys.setrecursionlimit(before)


def test_rfc_mode_handles_deep_values_without_recursion():
    deep = _nested(10_000)
    result = json_patch.apply({}, [{"op": "add", "path": "/x", "value": deep},
                                   {"op": "copy", "from": "/x", "path": "/y"},
                                   {"op": "test", "path": "/y", "value": deep}])
    assert set(result) == {"x", "y"}
    assert result["x"] is not deep and result["y"] is not result["x"]


def test_result_shares_nothing_with_inputs():
    doc = {"a": {"b": [1]}}
    value = {"c": [2]}
    result = json_patch.apply(doc, [{"op": "add", "path": "/v", "value": value}])
    result["a"]["b"].append(9)
    result["v"]["c"].append(9)
    assert doc == {"a": {"b": [1]}} and value == {"c": [2]}


# ---- properties ------------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=3)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8)
json_objects = st.dictionaries(st.text(max_size=4), json_values, max_size=4)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@settings(max_examples=200, deadline=None)
@given(doc=json_objects, key=st.text(max_size=4), value=json_values)
def test_add_then_remove_restores(doc, key, value):
    doc.pop(key, None)
    pointer = "/" + _escape(key)
    for compat in (False, True):
        added = json_patch.apply(doc, [{"op": "add", "path": pointer, "value": value}],
                                 kubectl_compat=compat)
        assert json_patch.apply(added, [{"op": "test", "path": pointer, "value": value}]) == added
        assert json_patch.apply(added, [{"op": "remove", "path": pointer}],
                                kubectl_compat=compat) == doc


@settings(max_examples=200, deadline=None)
@given(items=st.lists(json_values, max_size=5), value=json_values, data=st.data())
def test_array_insert_then_remove_restores(items, value, data):
    index = data.draw(st.integers(0, len(items)))
    doc = {"a": items}
    added = json_patch.apply(doc, [{"op": "add", "path": f"/a/{index}", "value": value}])
    assert added["a"][index] == value and len(added["a"]) == len(items) + 1
    assert json_patch.apply(added, [{"op": "remove", "path": f"/a/{index}"}]) == doc


@settings(max_examples=200, deadline=None)
@given(doc=json_objects, data=st.data())
def test_move_there_and_back_restores(doc, data):
    if not doc:
        return
    source = data.draw(st.sampled_from(sorted(doc)))
    target = data.draw(st.text(max_size=4).filter(lambda k: k not in doc))
    there = [{"op": "move", "from": "/" + _escape(source), "path": "/" + _escape(target)}]
    back = [{"op": "move", "from": "/" + _escape(target), "path": "/" + _escape(source)}]
    moved = json_patch.apply(doc, there)
    assert source not in moved and moved[target] == doc[source]
    assert json_patch.apply(moved, back) == doc


# ---- differential: kubectl_compat against the real kubectl ----------------------------------

_KEYS = ["a", "b", "c", "x/y", "m~n", ""]


def _random_value(rng, depth: int = 0) -> object:
    roll = rng.random()
    if depth >= 3 or roll < 0.45:
        return rng.choice([None, True, False, 0, 7, -3, "s", "", "null", "{}"])
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(_KEYS): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _pointers(value: object, prefix: str = "/spec") -> list[str]:
    """The pointers of every member and element below /spec (itself included)."""
    found, pending = [], [(prefix, value)]
    while pending:
        pointer, node = pending.pop()
        found.append(pointer)
        children = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, child in children:
            pending.append((f"{pointer}/{_escape(str(key))}", child))
    return found


def _random_pointer(rng, spec: object) -> str:
    pointer = rng.choice(_pointers(spec))
    roll = rng.random()
    if roll < 0.15:  # a member or index that may not exist, or a quirky index
        pointer += "/" + rng.choice(["zz", "-", "0", "00", "01", "-1", "-9", "5", "+1", "1e0"])
    elif roll < 0.2:
        pointer += "/" + _escape(rng.choice(_KEYS)) + "/q"
    return pointer


def _random_operation(rng, spec: object) -> dict:
    op = rng.choice(["add", "add", "remove", "replace", "move", "copy", "test"])
    operation = {"op": op, "path": _random_pointer(rng, spec)}
    if op in ("move", "copy"):
        operation["from"] = _random_pointer(rng, spec)
    if op in ("add", "replace", "test") and rng.random() > 0.05:
        operation["value"] = _random_value(rng)
    if op == "test" and rng.random() < 0.5:  # make some tests pass
        try:
            operation["value"] = json_patch.apply({"spec": spec}, [
                {"op": "copy", "from": operation["path"], "path": "/probe"}])["probe"]
        except PatchError:
            pass
    return operation


def _differential_pairs(seed: int, count: int) -> list[tuple[dict, str]]:
    import random

    rng = random.Random(seed)
    pairs = []
    for index in range(count):
        spec = {rng.choice(_KEYS): _random_value(rng) for _ in range(rng.randint(1, 4))}
        obj = {"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": f"w{index}"}, "spec": spec}
        operations = [_random_operation(rng, spec) for _ in range(rng.randint(1, 3))]
        pairs.append((obj, json.dumps(operations)))
    return pairs


@pytest.mark.kubectl
@pytest.mark.parametrize("seed", [20240601])
def test_differential_against_kubectl(seed):
    from tests.patch.kubectl_oracle import KUBECTL, run_patches

    if not KUBECTL.exists():
        pytest.skip("/usr/bin/kubectl is not installed")
    pairs = _differential_pairs(seed, 40)
    outcomes = run_patches(pairs, "json")
    failures, errors = [], 0
    for (obj, patch_text), outcome in zip(pairs, outcomes):
        try:
            mine = json_patch.apply(obj, patch_text, kubectl_compat=True)
        except PatchError as error:
            errors += 1
            expected_ok = (outcome.exit_code == 2 and error.panic
                           and outcome.stderr.startswith(str(error))) or (
                outcome.exit_code == 1 and outcome.stderr == f"error: {error.kubectl_message()}\n")
            if not expected_ok:
                failures.append((obj["spec"], patch_text, outcome, str(error)))
            continue
        if outcome.exit_code != 0 or outcome.object != mine:
            failures.append((obj["spec"], patch_text, outcome, mine))
    assert not failures, failures[:3]
    assert 0 < errors < len(pairs), "the generator should produce both successes and failures"

