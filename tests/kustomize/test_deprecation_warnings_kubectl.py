"""Differential: the deprecation warnings `kubectl kustomize` prints on stderr (once per
kustomization file read, nested bases included, before any later failure) and `kubelite
kustomize` must print the same stderr, stdout and exit status."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"

# case -> {path: text}; the build runs at "top"
CASES = {
    "every-field": {
        "top/kustomization.yaml": "bases:\n- ../base\ncommonLabels:\n  app: web\nimageTags:\n- name: x\n  newTag: v1\n"
                                  "patchesJson6902: []\npatchesStrategicMerge: []\nvars: []\n",
        "base/kustomization.yaml": "resources:\n- cm.yaml\n",
        "base/cm.yaml": CM.format(name="c"),
    },
    "nested-in-order": {
        "top/kustomization.yaml": "commonLabels:\n  a: top\nresources:\n- ../base\n- ../other\n",
        "base/kustomization.yaml": "vars: []\nresources:\n- cm.yaml\n",
        "base/cm.yaml": CM.format(name="c"),
        "other/kustomization.yaml": "patchesJson6902: []\ncommonLabels: {}\nresources:\n- cm.yaml\n",
        "other/cm.yaml": CM.format(name="d"),
    },
    "null-does-not-warn": {
        "top/kustomization.yaml": "commonLabels:\nbases: ~\nresources:\n- cm.yaml\n",
        "top/cm.yaml": CM.format(name="c"),
    },
    "case-insensitive-key": {
        "top/kustomization.yaml": "CommonLabels:\n  a: b\nresources:\n- cm.yaml\n",
        "top/cm.yaml": CM.format(name="c"),
    },
    "base-read-twice-then-fails": {
        "top/kustomization.yaml": "resources:\n- ../base\n- ../base\n",
        "base/kustomization.yaml": "commonLabels:\n  a: b\nresources:\n- cm.yaml\n",
        "base/cm.yaml": CM.format(name="c"),
    },
    "warns-before-missing-resource": {
        "top/kustomization.yaml": "vars: []\nresources:\n- nosuch.yaml\n",
    },
    "warns-before-bad-kind": {
        "top/kustomization.yaml": "kind: Foo\ncommonLabels:\n  a: b\n",
    },
    "unknown-field-fails-first": {
        "top/kustomization.yaml": "commonLabels:\n  a: b\nfoo: 1\n",
    },
}

_KLOG = re.compile(r"^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.M)


def _tree(root, files: dict) -> str:
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    return os.path.join(root, "top")


def _run(argv: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "KUBECONFIG": "/dev/null"}
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    return proc.returncode, proc.stdout, _KLOG.sub("E ", proc.stderr)


@pytest.mark.kubectl
@pytest.mark.parametrize("case", sorted(CASES))
def test_warnings_as_kubectl(case, tmp_path, kubectl):
    top = _tree(str(tmp_path), CASES[case])
    theirs = _run([kubectl, "kustomize", top])
    mine = _run([sys.executable, "-m", "kubelite", "kustomize", top])
    assert mine == theirs


@pytest.mark.kubectl
def test_cases_do_warn(tmp_path, kubectl):
    """kubectl itself warns in these cases (six lines for every field, one per file read twice),
    so the comparison above is about warnings and not only about empty stderr."""
    top = _tree(str(tmp_path / "a"), CASES["every-field"])
    assert _run([kubectl, "kustomize", top])[2].count("# Warning: ") == 6
    top = _tree(str(tmp_path / "b"), CASES["base-read-twice-then-fails"])
    assert _run([kubectl, "kustomize", top])[2].count("# Warning: 'commonLabels'") == 2
