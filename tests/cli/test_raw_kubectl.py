"""`--raw` of get, create, replace and delete against kubectl's, both talking to one `kubelite serve`.

Reads and refusals are compared directly. Writes change the server, so each tool runs the same
sequence (create, replace, get, delete, get again) on the same object in turn, and the outputs are
compared step by step with the fields a server sets per write (uid, resourceVersion, times) masked.
"""
from __future__ import annotations

import json
import re

import pytest

from cli_support import without_ages

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


# -- create -l / --selector and --windows-line-endings -------------------------------------------------

_TWO = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l1, labels: {a: b}}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l2}\n")
_UNKNOWN = "---\napiVersion: v9\nkind: Nope\nmetadata: {name: l3}\n"
SELECTING = [
    "create -f TWO -l a=c",
    "create -f TWO -l a=b --dry-run=client",
    "create -f TWO -l a!=b --dry-run=client -o name",
    "create -f TWO --selector=a --dry-run=server -o name",
    "create -f TWO -l a,in",
    "create -f TWO -l a=(",
    "create -f TWO --selector= --dry-run=client",
    "create -f TWO -l a=b --windows-line-endings --dry-run=client",
    "create -f MIXED -l a=b --dry-run=client",
    "create -f MIXED -l a=c",
    "create -f TWO -l a=b --raw /x",
]


@pytest.mark.parametrize("case", SELECTING)
def test_create_selector_matches_kubectl(case, tmp_path, kubectl, remote):
    (tmp_path / "two.yaml").write_text(_TWO)
    (tmp_path / "mixed.yaml").write_text(_TWO + _UNKNOWN)
    words = _words(case, {"TWO": str(tmp_path / "two.yaml"), "MIXED": str(tmp_path / "mixed.yaml")})
    theirs, ours = kubectl.run(*words), remote.run(*words)
    assert _shape(ours, "kubelite") == _shape(theirs, "kubectl")


# -- get --subresource -----------------------------------------------------------------------------------

SUBRESOURCE = [
    "get deploy sub --subresource=scale",
    "get deploy sub --subresource=status",
    "get deploy sub --subresource=scale -o yaml",
    "get deploy/sub --subresource=status -o json",
    "get deploy sub --subresource=scale -o name",
    "get deploy sub --subresource=scale -o wide",
    "get deploy --subresource=scale",
    "get deploy sub --subresource=nope",
    "get cm --subresource=status -l a=b",
]


@pytest.fixture(scope="module")
def deployed(served):
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig), "create", "deployment",
                    "sub", "--image=nginx"], check=True, capture_output=True, timeout=60)
    return served


@pytest.mark.parametrize("case", SUBRESOURCE)
def test_get_subresource_matches_kubectl(case, deployed, kubectl, remote):
    theirs, ours = kubectl.run(*case.split()), remote.run(*case.split())
    assert _aged(_shape(ours, "kubelite")) == _aged(_shape(theirs, "kubectl"))


def _aged(shape):
    """Ages in tables may differ by a second between the two runs."""
    code, out, err = shape
    return code, without_ages(out), err


# -- edit --output-patch -----------------------------------------------------------------------------------

_EDITS = [  # (what to create, the editor's sed script)
    (["create", "configmap", "NAME", "--from-literal=a=b"], "s/^  a: b$/  a: c/"),
    (["create", "deployment", "NAME", "--image=nginx"], "s/image: nginx/image: httpd/"),
]


@pytest.mark.parametrize("index", range(len(_EDITS)))
def test_edit_output_patch_matches_kubectl(index, served, kubectl, remote, tmp_path):
    create, script = _EDITS[index]
    editor = tmp_path / "ed"
    editor.write_text(f"#!/bin/sh\nsed -i '{script}' \"$1\"\n")
    editor.chmod(0o755)
    results = []
    for tool, cli in (("kubectl", kubectl), ("kubelite", remote)):
        name = f"patched-{index}-{tool}"
        assert remote.run(*[name if w == "NAME" else w for w in create]).returncode == 0
        cli.env["KUBE_EDITOR"] = str(editor)
        result = cli.run("edit", f"{create[1]}/{name}", "--output-patch")
        results.append((result.returncode, result.stdout.replace(name, "NAME"), result.stderr))
    assert results[1] == results[0]
    assert results[0][1].startswith("Patch: {")  # the edit did happen
