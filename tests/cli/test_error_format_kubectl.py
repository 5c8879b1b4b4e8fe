"""Error lines for Status failures: kubelite prints what /usr/bin/kubectl prints against the same
`kubelite serve` (and, for Status shapes a server rarely sends, kubectl 1.32's checkErr rules)."""
from __future__ import annotations

import pytest

from kubelite.cli.common import error_message
from kubelite.client.errors import ApiError

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: errfmt}
spec:
  replicas: 1
  selector: {matchLabels: {app: errfmt}}
  template:
    metadata: {labels: {app: errfmt}}
    spec: {containers: [{name: c, image: nginx}]}
"""

FAILING = [
    # a JSON patch whose test op fails: 422 Invalid with empty details and no causes
    ["patch", "deployment", "errfmt", "--type=json", "-p", '[{"op":"test","path":"/spec/replicas","value":5}]'],
    # a JSON patch removing a missing path
    ["patch", "deployment", "errfmt", "--type=json", "-p", '[{"op":"remove","path":"/spec/nope"}]'],
    # Invalid with causes (one, then several)
    ["patch", "deployment", "errfmt", "--type=merge", "-p", '{"spec":{"replicas":-1}}'],
    ["patch", "deployment", "errfmt", "--type=merge", "-p",
     '{"spec":{"replicas":-1,"template":{"spec":{"containers":[{"name":"c","image":""}]}}}}'],
    ["patch", "deployment", "missing", "--type=merge", "-p", '{"spec":{"replicas":2}}'],
]


@pytest.mark.kubectl
def test_failing_patches_print_as_kubectl(remote, kubectl, tmp_path):
    manifest = tmp_path / "d.yaml"
    manifest.write_text(DEPLOYMENT)
    assert kubectl.run("apply", "-f", str(manifest)).returncode == 0
    for argv in FAILING:
        want = kubectl.run(*argv)
        got = remote.run(*argv)
        assert want.returncode == 1, (argv, want.stderr)
        assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr), argv


def _invalid(**status) -> ApiError:
    return ApiError({"kind": "Status", "status": "Failure", "reason": "Invalid", "code": 422, **status})


# Shapes from kubectl 1.32's checkErr (pkg/cmd/util/helpers.go) for reason Invalid.
@pytest.mark.parametrize("status, line", [
    ({"message": "boom"}, "The request is invalid: boom"),
    ({}, "The request is invalid"),
    ({"message": "boom", "details": {}}, "The request is invalid: boom"),
    ({"details": {}}, "The request is invalid"),
    ({"message": "boom", "details": {"kind": "Pod", "name": "p"}}, 'The Pod "p" is invalid'),
    ({"message": "boom", "details": {"causes": [{"field": "a", "message": "bad"}]}},
     "The request is invalid: a: bad"),
    ({"message": "boom", "details": {"kind": "Pod", "name": "p", "causes": [
        {"field": "a", "message": "bad"}, {"field": "a", "message": "bad"}, {"message": "nofield"}]}},
     'The Pod "p" is invalid: \n* a: bad\n* : nofield'),
])
def test_invalid_status_layout(status, line):
    assert error_message(_invalid(**status)) == line
