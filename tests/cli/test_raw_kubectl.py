"""`--raw` of get, create, replace and delete against kubectl's, both talking to one `kubelite serve`.

Reads and refusals are compared directly. Writes change the server, so each tool runs the same
sequence (create, replace, get, delete, get again) on the same object in turn, and the outputs are
compared step by step with the fields a server sets per write (uid, resourceVersion, times) masked.
"""
from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.kubectl

READS = [
    "get --raw /healthz",
    "get --raw /healthz?verbose",
    "get --raw /api",
    "get --raw /api/v1/namespaces/default",
    "get --raw https://elsewhere.example/api/v1/namespaces/default",
    "get --raw /api/v1/namespaces/default/configmaps/nope",
    "get --raw /nope",
    "get --raw api/v1",
    "get --raw /a%zz",
    "get --raw /api pods",
    "get --raw /api -l a=b",
    "get --raw /api -w",
    "get --raw /api -o yaml",
    "get --raw /api -A --chunk-size=3",
    "create --raw /api/v1/namespaces/default/configmaps",
    "create --raw /x -f FILE -f FILE",
    "create --raw /x -f http://example.invalid/cm.json",
    "create --raw /x -f FILE -R",
    "create --raw /x -f FILE -o name",
    "create --raw /x -f FILE --edit",
    "create --raw x -f FILE",
    "create --raw /x -f missing.json",
    "replace --raw /x",
    "replace",
    "replace --raw /x -f FILE -f FILE",
    "replace --raw /x -f FILE -o yaml",
    "delete --raw /x -f FILE -f FILE",
    "delete --raw /x -o name",
    "delete --raw /x -o json",
    "delete --raw /x -f missing.json",
    "delete --raw /api/v1/namespaces/default/configmaps/nope",
    "delete --raw /api/v1/namespaces/default/configmaps/nope pods -l a=b",
]

_CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "raw"}, "data": {"a": "1"}}
WRITES = [
    "create --raw /api/v1/namespaces/default/configmaps -f FILE",
    "create --raw /api/v1/namespaces/default/configmaps -f FILE",  # AlreadyExists
    "replace --raw /api/v1/namespaces/default/configmaps/raw -f CHANGED",
    "get --raw /api/v1/namespaces/default/configmaps/raw",
    "delete --raw /api/v1/namespaces/default/configmaps/raw",
    "get --raw /api/v1/namespaces/default/configmaps/raw",
    "replace --raw /api/v1/namespaces/default/configmaps/raw -f CHANGED",
]
_VOLATILE = re.compile(r'"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"')


@pytest.fixture
def files(tmp_path):
    plain = tmp_path / "cm.json"
    plain.write_text(json.dumps(_CM))
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps({**_CM, "data": {"a": "2"}}))
    return {"FILE": str(plain), "CHANGED": str(changed)}


def _words(case: str, files: dict) -> list[str]:
    return [files.get(w, w) for w in case.split()]


def _shape(result, tool: str):
    return result.returncode, _VOLATILE.sub(r'"\1":"X"', result.stdout), result.stderr.replace(tool, "TOOL")


@pytest.mark.parametrize("case", READS)
def test_raw_reads_and_refusals_match_kubectl(case, files, kubectl, remote):
    words = _words(case, files)
    theirs, ours = kubectl.run(*words), remote.run(*words)
    assert _shape(ours, "kubelite") == _shape(theirs, "kubectl")


def test_raw_writes_match_kubectl(files, kubectl, remote):
    theirs = [_shape(kubectl.run(*_words(case, files)), "kubectl") for case in WRITES]
    ours = [_shape(remote.run(*_words(case, files)), "kubelite") for case in WRITES]
    assert ours == theirs
    assert [code for code, _, _ in ours] == [0, 1, 0, 0, 0, 1, 1]  # the sequence did what it meant to
    assert '"a":"2"' in ours[3][1]


def test_raw_create_reads_standard_input(files, remote):
    body = json.dumps({**_CM, "metadata": {"name": "from-stdin"}})
    created = remote.run("create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", "-", stdin=body)
    assert created.returncode == 0 and json.loads(created.stdout)["metadata"]["name"] == "from-stdin"
    assert remote.run("delete", "--raw", "/api/v1/namespaces/default/configmaps/from-stdin").returncode == 0
