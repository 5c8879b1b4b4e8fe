"""Every recorded `kubectl kustomize` case (Kustomize v5.5.0): byte-identical output,
or a failure where kubectl failed."""
from __future__ import annotations

import pytest

from kubelite.kustomize import KustomizeError, build, render

from . import cases

# Cases whose output still differs from kubectl's (see the report of issue 7).
KNOWN_FAILURES: set[str] = {
}

# Error cases whose message is already word for word Kustomize's (paths included).
EXACT_MESSAGES: set[str] = {
    "024-blank-namespace4240",
    "214-custom-open-api-field-both-path-and-version",
    "222-custom-open-api-field-not-builtin",
    "002-target-must-have-only-one-kustomization-file",
    "006-accumulate-resources-errors-relative-path-does-not-exist",
    "017-shared-patch-dis-allowed",
    "028-complex-composition-prod-failure",
    "078-issue1251-composite-diamond-failure",
    "081-issue1251-patches-prod-vs-dev-failure",
    "110-config-map-generating-into-same-namespace",
    "111-secret-generating-into-same-namespace",
    "148-intermediate-name-ambiguous",
    "215-custom-open-api-field-file-not-found",
    "258-invalid-legacy-sort-options-without-order-key",
    "259-invalid-legacy-sort-options-with-fifoorder",
    "263-sort-order-given-as-transformer",
    "305-namespace-transformer-object-conflict",
    "324-both-empty-patch-strategic-merge-transformer",
    "329-strategic-merge-transformer-wrong-namespace",
    "344-multiple-namespaces",
    "345-multiple-namespaces",
    "346-multiple-namespaces",
    "347-multiple-namespaces",
    "348-multiple-namespaces",
    "354-patch-transformer-missing-selector",
    "381-no-match",
    "383-wrong-order",
    "384-sort-order-transformer-default-ordering",
    "385-sort-order-transformer-webhooks-first-order-namespace-and-de",
    "386-sort-order-transformer-fifo-order",
    "387-sort-order-transformer-some-first-some-last-some-in-between",
    "398-example-generator-options-verify",
    "474-hw-error-missing-resource-file",
    "480-hw-error-generator-conflicts-with-resource",
    "481-hw-error-patch-target-not-found-smp",
    "484-hw-error-json6902-bad-path",
    "485-hw-error-json6902-test-op-fails",
    "491-hw-error-unknown-kustomization-field",
    "494-hw-error-var-undefined-objref",
    "497-hw-error-component-kind-in-resources",
    "498-hw-error-namespace-conflict-after-transform",
    "500-hw-error-duplicate-generator-keys",
}

NAMES = cases.case_names()


def _id(name: str) -> str:
    return name


PARAMS = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="known difference from kubectl"))
          if n in KNOWN_FAILURES else n for n in NAMES]


@pytest.mark.parametrize("name", PARAMS, ids=_id)
def test_case(name):
    case = cases.load(name)
    opts = cases.build_options(case["flags"])
    if "expected" in case:
        assert render(build(case["path"], **opts)) == case["expected"]
    else:
        with pytest.raises(KustomizeError) as info:
            build(case["path"], **opts)
        message = str(info.value)
        assert message
        if name in EXACT_MESSAGES:
            assert message == case["error"].replace("<CASE>", case["dir"])
