"""Printing flags shared by the object commands, differential against kubectl 1.32:
-o go-template / go-template-file / template / templatefile, --template (alone it means
go-template; with -o jsonpath it is the JSONPath), --allow-missing-template-keys, and
--show-managed-fields (kubectl drops metadata.managedFields from -o yaml/json only)."""
from __future__ import annotations

import io
import json
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

KUBECTL = "/usr/bin/kubectl"
needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")
pytestmark = [pytest.mark.kubectl, needs_kubectl]

MANAGED = [{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:k": {}}},
            "manager": "kubectl-client-side-apply", "operation": "Update", "time": "2024-01-01T00:00:00Z"}]
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "one", "labels": {"a": "1"}, "managedFields": MANAGED}, "data": {"k": "v"}}
SECOND = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "two", "managedFields": MANAGED},
          "data": {"p": "cGFzcw=="}}


def _kubelite(argv: list[str]) -> tuple[int, str, str]:
    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _kubectl(argv: list[str], home) -> tuple[int, str, str]:
    p = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, timeout=60,
                       env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(home)})
    return p.returncode, p.stdout, p.stderr


def _cases(tmp_path) -> list[list[str]]:
    (tmp_path / "t.tmpl").write_text("{{.kind}}:{{range $k, $v := .metadata.labels}}{{$k}}={{$v}}{{end}}\n")
    (tmp_path / "bad.tmpl").write_text("{{if .kind}}")
    return [
        ["-o", "go-template={{.metadata.name}} {{.data}}"],
        ["--template={{.kind}}/{{.metadata.name}}"],
        ["-o", "template", "--template={{.kind}}"],
        ["-o", "go-template", "--template", "{{len .metadata.managedFields}}"],
        ["-o", "templatefile=" + str(tmp_path / "t.tmpl")],
        ["-o", "go-template-file=" + str(tmp_path / "t.tmpl")],
        ["-o", "go-template-file=" + str(tmp_path / "bad.tmpl")],
        ["-o", "go-template-file=" + str(tmp_path / "absent.tmpl")],
        ["-o", "go-template"],
        ["-o", "template"],
        ["-o", "go-template={{.a}"],
        ["-o", "go-template=before {{.metadata.nope}} after", "--allow-missing-template-keys=false"],
        ["-o", "go-template={{.metadata.nope}}", "--allow-missing-template-keys=true"],
        ["-o", "jsonpath={.metadata.nope}", "--allow-missing-template-keys=false"],
        ["-o", "jsonpath", "--template={.kind}"],
        ["-o", "jsonpath={.metadata.managedFields[0].manager}"],
        ["-o", "yaml"],
        ["-o", "json"],
        ["-o", "yaml", "--show-managed-fields"],
        ["-o", "json", "--show-managed-fields=true"],
        ["-o", "name"],
        ["-o", "bogus"],
    ]


def _printer_errors(tmp_path) -> list[list[str]]:
    return [["-o", "go-template-file=" + str(tmp_path / "bad.tmpl")],
            ["-o", "go-template-file=" + str(tmp_path / "absent.tmpl")], ["-o", "go-template"], ["-o", "template"],
            ["-o", "go-template={{.a}"], ["-o", "bogus"]]


@pytest.mark.parametrize("objects", [[CONFIGMAP], [CONFIGMAP, SECOND]], ids=["one", "list"])
def test_patch_local_prints_as_kubectl(objects, tmp_path):
    path = tmp_path / "objects.json"
    doc = objects[0] if len(objects) == 1 else {"apiVersion": "v1", "kind": "List", "items": objects}
    path.write_text(json.dumps(doc))
    base = ["patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge"]
    os.environ["KUBECONFIG"] = "/dev/null"
    for case in _cases(tmp_path):
        if len(objects) > 1 and case in _printer_errors(tmp_path):
            continue  # kubectl patch builds its printer once per object, so these errors repeat per object
        theirs = _kubectl(base + case, tmp_path)
        ours = _kubelite(base + case)
        assert ours == theirs, case


def test_get_strips_managed_fields_of_served_objects(served, tmp_path):
    """Objects from a server carry managedFields; get drops them from yaml/json unless asked."""
    files = []
    for i, obj in enumerate((CONFIGMAP, SECOND)):
        files.append(tmp_path / f"o{i}.json")
        files[-1].write_text(json.dumps(obj))
    conn = ["--kubeconfig", str(served.kubeconfig)]
    kubectl = [*conn, "--cache-dir", str(tmp_path / "cache")]
    for f in files:
        assert _kubectl([*kubectl, "create", "-f", str(f)], tmp_path)[0] == 0
    live = json.loads(_kubectl([*kubectl, "get", "cm", "one", "-o", "json", "--show-managed-fields"], tmp_path)[1])
    if not live["metadata"].get("managedFields"):
        pytest.skip("the server drops managedFields sent by clients")
    for case in (["cm", "one", "-o", "yaml"], ["cm", "one", "-o", "json"], ["cm", "one", "-o", "yaml",
                 "--show-managed-fields"], ["cm", "-o", "json"], ["cm,secret", "-o", "yaml"],
                 ["cm,secret", "-o", "yaml", "--show-managed-fields"],
                 ["cm", "one", "-o", "jsonpath={.metadata.managedFields[*].manager}"],
                 ["cm", "-o", "go-template={{range .items}}{{.metadata.name}}:{{len .metadata.managedFields}} "
                  "{{end}}"]):
        theirs = _kubectl([*kubectl, "get", *case], tmp_path)
        ours = _kubelite([*conn, "get", *case])
        assert ours == theirs, case
