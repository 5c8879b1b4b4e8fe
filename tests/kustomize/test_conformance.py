"""Every recorded `kubectl kustomize` case (Kustomize v5.5.0): byte-identical output,
or a failure where kubectl failed."""
from __future__ import annotations

import pytest

from kubelite.kustomize import KustomizeError, build, render

from . import cases

# Cases whose output still differs from kubectl's (see the report of issue 7).
KNOWN_FAILURES: set[str] = set()

NAMES = cases.case_names()


def _id(name: str) -> str:
    return name


@pytest.mark.parametrize("name", NAMES, ids=_id)
def test_case(name):
    if name in KNOWN_FAILURES:
        pytest.xfail("known difference from kubectl kustomize")
    case = cases.load(name)
    opts = cases.build_options(case["flags"])
    if "expected" in case:
        assert render(build(case["path"], **opts)) == case["expected"]
    else:
        with pytest.raises(KustomizeError) as info:
            build(case["path"], **opts)
        message = str(info.value)
        assert message and "\n" not in message.split(":")[0]
