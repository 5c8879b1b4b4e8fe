"""Differential against real kubectl on one `kubelite serve`: diff bodies (with Secret masking),
view-last-applied output, and the annotation set-last-applied writes."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "apply"))
from apply_support import HAVE_KUBECTL, served  # noqa: E402,F401 (a fixture)

pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")]


def body(diff_output: str) -> list[str]:
    # headers name temporary paths; a dry-run create answers with a fresh uid and timestamp
    return [line for line in diff_output.splitlines() if not line.startswith(("diff ", "--- ", "+++ "))
            and not line.lstrip("+- ").startswith(("uid:", "creationTimestamp:"))]


def test_diff_matches_kubectl(served, tmp_path):
    first = tmp_path / "a.yaml"
    first.write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  a: one\n  b: two\n---\n"
                     "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n"
                     "    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n"
                     "      containers:\n      - {name: c, image: 'nginx:1'}\n")
    assert served.kubectl("apply", "-f", str(first)).returncode == 0
    second = tmp_path / "b.yaml"
    second.write_text(first.read_text().replace("b: two", "b: three\n  c: new").replace("nginx:1", "nginx:2"))
    new = tmp_path / "new.yaml"
    new.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fresh\ndata:\n  k: v\n")
    for f in (second, new, first):
        theirs, ours = served.kubectl("diff", "-f", str(f)), served.kubelite("diff", "-f", str(f))
        assert ours.returncode == theirs.returncode, ours.stderr
        assert body(ours.stdout) == body(theirs.stdout)
    assert "*** (after)" in served.kubelite("diff", "-f", str(second)).stdout


def test_view_and_set_last_applied_match_kubectl(served, tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: la\n  labels: {a: b}\ndata:\n  x: '1'\n"
                 "  y: <&>\n")
    assert served.kubelite("apply", "-f", str(f)).returncode == 0
    for output in ("yaml", "json"):
        theirs = served.kubectl("apply", "view-last-applied", "configmap", "la", "-o", output)
        ours = served.kubelite("apply", "view-last-applied", "configmap", "la", "-o", output)
        assert ours.returncode == theirs.returncode == 0
        assert ours.stdout == theirs.stdout

    changed = tmp_path / "cm2.yaml"
    changed.write_text(f.read_text().replace("x: '1'", "x: '2'"))
    theirs = served.kubectl("apply", "set-last-applied", "-f", str(changed))
    assert theirs.returncode == 0, theirs.stderr
    kubectl_text = json.loads(served.kubectl("get", "configmap", "la", "-o", "json").stdout)[
        "metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert served.kubelite("apply", "-f", str(f)).returncode == 0  # back to the first text
    ours = served.kubelite("apply", "set-last-applied", "-f", str(changed))
    assert ours.returncode == 0 and ours.stdout == theirs.stdout
    kubelite_text = json.loads(served.kubectl("get", "configmap", "la", "-o", "json").stdout)[
        "metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert kubelite_text == kubectl_text
    again = served.kubelite("apply", "set-last-applied", "-f", str(changed))
    assert again.stdout == served.kubectl("apply", "set-last-applied", "-f", str(changed)).stdout


@pytest.mark.parametrize("args", [["--bogus"], ["-f", "/nonexistent/file.yaml"], ["-f"],
                                  ["-f", "x.yaml", "-k", "."]])
def test_diff_failures_exit_2_as_kubectl(served, args):
    theirs, ours = served.kubectl("diff", *args), served.kubelite("diff", *args)
    assert ours.returncode == theirs.returncode == 2, (theirs.stderr, ours.stderr)
    if args[-1] != "--bogus" and args != ["-f"]:  # flag-parser wording differs (cobra vs argparse)
        assert ours.stderr == theirs.stderr
