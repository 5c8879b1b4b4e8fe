"""`kubelite create token` against kubectl create token, both talking to one `kubelite serve`.

Tokens and timestamps differ from call to call, so what is compared is the shape: exit codes,
error messages, the token printed bare (no newline when not on a terminal), and the TokenRequest
printed by -o with its token and times masked.
"""
from __future__ import annotations

import base64
import json
import re

import pytest

pytestmark = pytest.mark.kubectl

CASES = [
    "create token bot",
    "create token bot -o yaml --duration=20m --audience=a --audience=b",
    "create token bot -o json --duration=1h",
    "create token bot -o name",
    "create token bot -o jsonpath={.spec}",
    "create token bot --bound-object-kind=Secret --bound-object-name=key -o yaml",
    "create token nope",
    "create token bot --duration=1.5s",
    "create token bot --duration=-1s",
    "create token bot --duration=abc",
    "create token bot --duration=5m",
    "create token bot --bound-object-kind=Pod",
    "create token bot --bound-object-kind=Foo",
    "create token bot --bound-object-name=x",
    "create token bot --bound-object-uid=x",
    "create token bot --bound-object-kind=Pod --bound-object-name=missing",
    "create token bot --bound-object-kind=Secret --bound-object-name=key --bound-object-uid=wrong",
    "create token",
    "create token a b",
    "create token bot --audience=",
    "create token bot -n other",
]

_JWT = re.compile(r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _shape(result, tool: str):
    out = _TIME.sub("TIME", _JWT.sub("TOKEN", result.stdout))
    err = result.stderr.replace(tool, "TOOL")
    return result.returncode, out, err


@pytest.fixture(scope="module")
def prepared(served, tmp_path_factory):
    import subprocess
    import sys

    base = [sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig)]
    for step in (["create", "sa", "bot"], ["create", "secret", "generic", "key"], ["create", "ns", "other"],
                 ["create", "sa", "bot", "-n", "other"]):
        subprocess.run(base + step, check=True, capture_output=True, timeout=60)
    return served


@pytest.mark.parametrize("case", CASES)
def test_create_token_matches_kubectl(case, prepared, kubectl, remote):
    words = case.split()
    theirs, ours = kubectl.run(*words), remote.run(*words)
    assert _shape(ours, "kubelite") == _shape(theirs, "kubectl")


def test_token_printed_bare_carries_the_request(prepared, remote):
    result = remote.run("create", "token", "bot", "--audience=vault", "--duration=15m")
    assert result.returncode == 0 and _JWT.fullmatch(result.stdout)  # no newline: stdout is a pipe
    claims = result.stdout.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    assert claims["aud"] == ["vault"] and claims["exp"] - claims["iat"] == 900
    assert claims["sub"] == "system:serviceaccount:default:bot"
