"""Client-side label selectors (kubectl's metav1.ParseToLabelSelector) against /usr/bin/kubectl:
`create poddisruptionbudget --selector S --dry-run=client` prints the LabelSelector kubectl
built, or the parse error; kubelite's parse_to_label_selector must give the same."""
from __future__ import annotations

import os
import pathlib
import subprocess

import pytest
import yaml

from kubelite.imperative.errors import ImperativeError
from kubelite.imperative.selectors import parse_to_label_selector

KUBECTL = pathlib.Path("/usr/bin/kubectl")

SELECTORS = [
    "app=web", "app==web,tier!=x", "b,a in (y,x),c=", "!a", "a notin (z, y ,x)", "a in ()", "a in (,x,)",
    "a in", "a=b=c", "!a=b", "x/y/z", "a=b,", "a>1", "a<1", "a in (x", "Example.com/b=c", "a=" + "v" * 64,
    "k=v, k2 = v2", "a in (x),a=y", "=x", "a b",
]


def _kubectl(selector: str) -> tuple[dict | None, str]:
    result = subprocess.run([str(KUBECTL), "create", "poddisruptionbudget", "p", "--min-available=1",
                             f"--selector={selector}", "--dry-run=client", "-o", "yaml"],
                            capture_output=True, text=True, timeout=30, env={**os.environ, "KUBECONFIG": "/dev/null"})
    if result.returncode:
        return None, result.stderr.strip().removeprefix("error: ")
    return yaml.safe_load(result.stdout)["spec"].get("selector") or {}, ""


@pytest.mark.kubectl
@pytest.mark.skipif(not KUBECTL.exists(), reason="kubectl missing")
@pytest.mark.parametrize("selector", SELECTORS)
def test_selector_as_kubectl_builds_it(selector):
    want, error = _kubectl(selector)
    if want is None:
        with pytest.raises(ImperativeError) as caught:
            parse_to_label_selector(selector)
        assert str(caught.value) == error
    else:
        assert parse_to_label_selector(selector) == want
