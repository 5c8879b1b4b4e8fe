"""Flag errors word for word as kubectl's (pflag's messages, cobra's hint line, exit code),
`kubelite` standing where kubectl names itself."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="kubectl not installed")]

CASES = [
    "apply --foo",
    "apply -x",
    "apply -f",
    "apply -fx -Z",
    "apply --fo=1",  # no prefix matching (--force exists)
    "get pods --output",
    "get pods -o",
    "get --foo=bar pods",
    "get pods -owide -Q",
    "get pods --chunk-size=abc",
    "scale --replicas=x deploy/a",
    "delete --zzz",
    "version --bogus",
    "create deployment --bogus x",
    "create deployment x --image",
    "config view --foo",
    "diff --foo",  # diff has its own flag error handler: exit 2, the older hint
    "diff -f",
]


def _run(argv: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("case", CASES)
def test_flag_error_as_kubectl(case, tmp_path):
    env = dict(os.environ, KUBECONFIG=os.devnull, HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kl"))
    want = _run([KUBECTL, *case.split()], env)
    got = _run([sys.executable, "-m", "kubelite", *case.split()], env)
    assert want.returncode in (1, 2)
    assert (got.returncode, got.stdout, got.stderr) == (
        want.returncode, "", want.stderr.replace("'kubectl ", "'kubelite "))
