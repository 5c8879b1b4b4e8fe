"""`kubectl patch --local` recorded from kubectl 1.32 (tests/data/conformance/kubectl-patch/cases.json):
patch_local must give kubectl's object, or fail with kubectl's error text."""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.patch import PatchError
from kubelite.patch.kubectl import patch_local
from kubelite.patch.strategic import to_json

CASES = json.loads(
    (pathlib.Path(__file__).parent.parent / "data" / "conformance" / "kubectl-patch" / "cases.json").read_text()
)["cases"]

# Cases whose error text we do not reproduce byte for byte; the failure itself is still required.
INEXACT_ERRORS: dict[str, str] = {}


def _kubectl_error(case) -> str:
    text = case["stderr"]
    assert text.startswith("error: ")
    return text[len("error: "):]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_kubectl_patch_case(case):
    if case["exit_code"] == 0:
        result = patch_local(case["original"], case["patch_text"], case["type"])
        assert to_json(result) == to_json(case["result"])
        return
    with pytest.raises(PatchError) as err:
        patch_local(case["original"], case["patch_text"], case["type"])
    if case["id"] in INEXACT_ERRORS:
        return
    # kubectl adds a newline unless the message already ends with one.
    message = str(err.value)
    assert (message if message.endswith("\n") else message + "\n") == _kubectl_error(case)


def test_unknown_kind_refuses_strategic():
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    with pytest.raises(PatchError) as err:
        patch_local(widget, '{"spec":{"a":1}}', "strategic")
    assert str(err.value) == ("strategic merge patch is not supported for example.com/v1, Kind=Widget locally, "
                              "try --type merge")
