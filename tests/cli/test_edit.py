"""`kubelite edit` with scripted editors: saving a change, no change, an empty file, an invalid
edit reopened with the server's causes as comments at the top (kubectl's texts, compared with
kubectl edit on the same `kubelite serve`), several objects, -o json, --save-config."""
from __future__ import annotations

import json
import os
import stat

import pytest

CONFIGMAPS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: one, labels: {app: e}}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: two, labels: {app: e}}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
"""


def _editor(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.fixture
def cli(embedded, tmp_path):
    manifest = tmp_path / "objects.yaml"
    manifest.write_text(CONFIGMAPS)
    assert embedded.run("create", "-f", str(manifest)).returncode == 0
    return embedded


def test_change_is_saved(cli, tmp_path):
    cli.env["KUBE_EDITOR"] = _editor(tmp_path, "ed", "sed -i 's/^  a: b$/  a: changed/' \"$1\"\n")
    r = cli.run("edit", "configmap", "one")
    assert (r.returncode, r.stdout, r.stderr) == (0, "configmap/one edited\n", "")
    assert cli.run("get", "cm", "one", "-o", "jsonpath={.data.a}").stdout == "changed"


def test_no_change_and_empty_file(cli, tmp_path):
    cli.env["KUBE_EDITOR"] = "true"
    r = cli.run("edit", "cm/one")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "Edit cancelled, no changes made.\n")
    cli.env["KUBE_EDITOR"] = _editor(tmp_path, "empty", ": > \"$1\"\n")
    r = cli.run("edit", "cm/one")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "Edit cancelled, saved file was empty.\n")


def test_editor_fallback_order(cli, tmp_path):
    cli.env.pop("KUBE_EDITOR", None)
    cli.env["EDITOR"] = _editor(tmp_path, "ed", "sed -i 's/^  a: b$/  a: via-editor/' \"$1\"\n")
    r = cli.run("edit", "cm", "two")
    assert (r.returncode, r.stdout) == (0, "configmap/two edited\n")
    cli.env["KUBE_EDITOR"] = "true"
    r = cli.run("edit", "cm", "two")
    assert r.stderr == "Edit cancelled, no changes made.\n"


def test_invalid_edit_reopens_with_the_error(cli, tmp_path):
    log = tmp_path / "log"
    cli.env["KUBE_EDITOR"] = _editor(tmp_path, "ed", f"echo === >> {log}; cat \"$1\" >> {log}\n"
                                                    "sed -i 's/^  replicas: .*/  replicas: -1/' \"$1\"\n")
    r = cli.run("edit", "deployment", "web")
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0] == 'error: deployments.apps "web" is invalid'
    assert lines[1].startswith('A copy of your changes has been stored to "') and len(lines) == 3
    assert lines[2] == "error: Edit cancelled, no valid changes were saved."
    second = log.read_text().split("===\n")[2]
    assert second.startswith("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
                             "# and an empty file will abort the edit. If an error occurs while saving this file "
                             "will be\n# reopened with the relevant failures.\n#\n"
                             '# deployments.apps "web" was not valid:\n'
                             "# * spec.replicas: Invalid value: -1: must be greater than or equal to 0\n#\n"
                             "apiVersion: apps/v1\n")


def test_several_objects_json_and_save_config(cli, tmp_path):
    cli.env["KUBE_EDITOR"] = _editor(tmp_path, "ed", "sed -i 's/\"a\": \"b\"/\"a\": \"c\"/' \"$1\"\n")
    r = cli.run("edit", "configmaps", "-l", "app=e", "-o", "json", "--save-config")
    assert (r.returncode, r.stdout) == (0, "configmap/one edited\nconfigmap/two edited\n"), r.stderr
    doc = json.loads(cli.run("get", "cm", "one", "-o", "json").stdout)
    assert doc["data"] == {"a": "c"}
    assert "kubectl.kubernetes.io/last-applied-configuration" in doc["metadata"]["annotations"]


@pytest.mark.kubectl
def test_messages_match_kubectl(kubectl, remote, tmp_path):
    manifest = tmp_path / "objects.yaml"
    manifest.write_text(CONFIGMAPS.replace("name: one", "name: edit-one"))
    assert kubectl.run("apply", "-f", str(manifest)).returncode == 0
    bad = _editor(tmp_path, "bad", "sed -i 's/^  replicas: .*/  replicas: -1/' \"$1\"\n")
    for editor, argv in (("true", ["edit", "cm", "edit-one"]), (bad, ["edit", "deployment", "web"])):
        kubectl.env["KUBE_EDITOR"] = remote.env["KUBE_EDITOR"] = editor
        want, got = kubectl.run(*argv), remote.run(*argv)
        strip = lambda text: [line for line in text.splitlines() if not line.startswith("A copy")]
        assert (got.returncode, got.stdout, strip(got.stderr)) == (want.returncode, want.stdout, strip(want.stderr))
