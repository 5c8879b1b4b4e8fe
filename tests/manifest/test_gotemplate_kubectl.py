"""-o go-template, differential against /usr/bin/kubectl (offline, `kubectl patch --local`).

Templates that succeed run in one kubectl call per object: they are joined into one template
with a separator line, and the output is split back. Failing templates (parse and execution
errors) run one call each; stdout (partial output plus kubectl's debugging text), stderr and the
exit code must all match.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

from kubelite.manifest import gotemplate

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")]

POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "multi", "namespace": "default", "labels": {"tier": "web", "app": "x"},
                 "annotations": {"note": "a<b>&c", "empty": "", "z": "last"}},
    "spec": {
        "containers": [
            {"name": "app", "image": "busybox:1.36", "args": ["sleep", "3600"],
             "ports": [{"containerPort": 8080}, {"containerPort": 9090, "name": "metrics"}]},
            {"name": "sidecar", "image": "envoy:v1"},
        ],
        "priority": -5, "hostNetwork": False, "enabled": True, "nothing": None, "data": "aGVsbG8gd29ybGQ=",
        "weights": [0.5, 1.25, 1234567.5, 1e-7, 3, 1000000, 123456789, 12345678901234567890, 100000],
        "items": [{"name": "a", "n": 1}, {"name": "b", "n": 2, "x": None}, {"name": "c", "tags": []}],
        "unicode": "héllo wörld ✓", "quote": "say \"hi\"\tnow",
    },
}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
             "data": {"a": "1", "b": "two", "multi": "line1\nline2\n"}}

OK = [
    "{{.kind}}/{{.metadata.name}}",
    "{{.metadata.labels}}",
    "{{.metadata}}",
    "{{.spec.weights}}",
    "{{.spec.priority}} {{.spec.hostNetwork}} {{.spec.enabled}}",
    "{{.spec.nothing}}|{{.spec.missing}}|{{.nope.deeper}}",
    "{{range .spec.containers}}{{.name}}={{.image}};{{end}}",
    "{{range $i, $c := .spec.containers}}{{$i}}:{{$c.name}} {{end}}",
    "{{range $c := .spec.containers}}[{{$c.name}}]{{end}}",
    "{{range $k, $v := .metadata.labels}}{{$k}}={{$v}},{{end}}",
    "{{range .metadata.annotations}}<{{.}}>{{end}}",
    "{{range .spec.items}}{{.name}}:{{.n}}:{{.x}};{{end}}",
    "{{range .spec.missing}}x{{else}}empty{{end}}",
    "{{range .spec.items}}{{if eq .name \"b\"}}{{break}}{{end}}{{.name}}{{end}}",
    "{{range .spec.items}}{{if eq .name \"b\"}}{{continue}}{{end}}{{.name}}{{end}}",
    "{{if .spec.hostNetwork}}host{{else}}pod{{end}}",
    "{{if .spec.enabled}}on{{end}} {{if .spec.nothing}}x{{else if .spec.priority}}prio{{end}}",
    "{{if and .spec.enabled .metadata.name}}both{{end}} {{or .spec.missing .spec.nothing \"dflt\"}}",
    "{{and 1 0 2}} {{or 0 \"\" .spec.missing}} {{not .spec.hostNetwork}} {{not .metadata}}",
    "{{with .metadata.labels}}{{.tier}}{{end}} {{with .spec.missing}}no{{else}}none{{end}}",
    "{{with $x := .metadata.name}}{{$x}}{{$}}{{end}}",
    "{{with .spec.missing}}a{{else with .metadata.name}}{{.}}{{end}}",
    "{{$n := .metadata.name}}{{$n}} {{$n = \"other\"}}{{$n}}",
    "{{len .spec.containers}} {{len .metadata.labels}} {{len .metadata.name}} {{len .spec.unicode}}",
    "{{index .spec.containers 1}} {{index .metadata.labels \"tier\"}} {{index .metadata.labels \"nope\"}}",
    "{{index .spec.containers 0 \"ports\" 1 \"name\"}} {{index .metadata.name 0}}",
    "{{slice .metadata.name 1 3}} {{slice .spec.weights 1 2}}",
    "{{printf \"%s-%v\" .kind .spec.priority}} {{printf \"%d\" .spec.priority}} {{printf \"%05.1f|%x|%q\" .spec.priority .metadata.name .spec.quote}}",
    "{{printf \"%v %s %T %T\" .metadata.labels .spec.weights .spec.priority .metadata}}",
    "{{printf \"%d %d\" 1}} {{printf \"%s\" \"a\" \"b\"}} {{printf \"%z\" 3}} {{printf \"%\"}}",
    "{{printf \"%-6s|%6s|%.2s|%t\" \"ab\" \"cd\" \"efgh\" true}}",
    "{{printf \"%e %g %.3g %8.2f\" 1234.5678 0.000012 3.14159 2.5}}",
    "{{print .kind 1 2 \"x\" 3 .spec.nothing}}{{println .kind 4 .spec.hostNetwork}}",
    "{{.metadata.name | printf \"%s!\"}} {{.metadata.name | len}} {{\"x\" | printf \"%s%s\" \"y\"}}",
    "{{eq .kind \"Pod\"}} {{eq .kind \"A\" \"Pod\"}} {{ne .metadata.name \"x\"}} {{eq .spec.priority -5}}",
    "{{lt 1 2}} {{le 2 2}} {{gt \"b\" \"a\"}} {{ge 1.5 2.5}} {{lt .spec.priority 0}} {{eq .spec.priority 3}}",
    "{{eq .spec.missing \"x\"}} {{eq .spec.nothing .spec.missing}}",
    "{{exists . \"spec\" \"containers\" 0 \"name\"}} {{exists . \"spec\" \"nope\"}} {{exists .spec \"nothing\"}}",
    "{{base64decode .spec.data}} {{.spec.data | base64decode}}",
    "{{html .metadata.annotations.note}} {{js .spec.quote}} {{urlquery \"a b&c=d/é\"}}",
    "a  {{- .kind -}}  b\n  {{- /* comment */ -}}  c {{/* another */}} d",
    "{{- .kind}}\n{{- range .spec.containers}}\n  {{.name}}\n{{- end}}\n",
    "{{`raw \\n string`}} {{\"esc\\t\\u00e9\\x41\"}} {{'a'}} {{0x1F}} {{1e3}} {{-2}} {{3.0}} {{true}}",
    "{{(index .spec.containers 0).name}} {{(.metadata).name}}",
    "{{define \"T\"}}<{{.}}>{{end}}{{template \"T\" .metadata.name}}{{block \"B\" .kind}}[{{.}}]{{end}}",
    "{{.spec.unicode}} {{printf \"%q\" .spec.unicode}} {{printf \"%x\" .spec.unicode}}",
    "{{range $i, $w := .spec.weights}}{{$i}}={{$w}} {{end}}",
    "{{range .spec.items}}{{range .tags}}t{{else}}no-tags:{{.}}{{end}}{{end}}",
    "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}} {{$y := 5}}{{range .spec.containers}}{{$y}}{{end}}",
    "{{print}}|{{println}}|{{printf \"\"}}",
    "{{with .spec}}{{.priority}}{{end}}{{.spec.priority | printf \"%v\"}}",
]
CONFIGMAP_OK = [
    "{{.data}} {{.data.multi}} {{.spec}} {{.spec.x}}",
    "{{range $k, $v := .data}}{{$k}}:{{len $v}} {{end}}{{ .kind }}{{ .missing }}",
    "{{range .data}}{{.}},{{end}}{{with .spec}}x{{else}}y{{end}}",
    "{{index .data \"a\"}}{{exists . \"data\" \"b\"}}{{printf \"%q\" .data.multi}}",
    "{{.metadata}} {{.}}",
]

FAILING = [
    "{{.a}",
    "{{foo}}",
    "{{.kind",
    "{{if .kind}}x",
    "{{end}}",
    "{{else}}",
    "{{range .spec.containers}}{{end}}{{break}}",
    "{{$undefined}}",
    "{{.kind | 3}}",
    "{{}}",
    "{{\"unterminated}}",
    "{{.kind)}}",
    "{{(.kind}}",
    "{{3.kind}}",
    "{{/* open",
    "{{if}}{{end}}",
    "{{eq .kind 3}}",
    "{{lt .kind 1.0}}",
    "{{eq .spec.priority -5.0}}",
    "{{len .spec.missing}}",
    "{{lt true false}}",
    "{{.kind.name}}",
    "{{.metadata.labels.tier.x}}",
    "{{.spec.nothing.x}}",
    "{{range .spec.priority}}{{end}}",
    "{{range .kind}}{{end}}",
    "{{index .spec.containers 5}}",
    "{{index .spec.containers \"a\"}}",
    "{{index .metadata.labels 1}}",
    "{{index .spec.priority 0}}",
    "{{len .spec.priority}}",
    "{{len .spec.nothing}}",
    "{{printf .spec.priority}}",
    "{{printf 3}}",
    "{{base64decode \"!!!\"}}",
    "{{not}}",
    "{{ne 1}}",
    "{{.metadata.name 1}}",
    "{{template \"missing\"}}",
    "{{$x := 1}}{{$x 2}}",
    "{{with .metadata}}{{.name.first}}{{end}}",
    "{{nil}}",
    "{{range $i, $v := 2}}{{end}}",
    "{{range 3}}{{.}}{{end}}",
]
MISSING_KEY_ERRORS = [
    "{{.metadata.nope}}",
    "{{.nope.deeper}}",
    "ok {{.kind}} then {{.metadata.nope.x}} never",
    "{{range .spec.items}}{{.n}}{{end}}",
    "{{index .metadata.labels \"nope\"}}|{{.metadata.name}}",
]
SEP = "|=====8<=====|"  # no whitespace at its ends, which trim markers would eat


def _kubectl(obj: dict, template: str, tmp_path, extra=()) -> tuple[int, str, str]:
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(obj))
    p = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "-p", "{}", "--type", "merge",
                        "-o", "go-template=" + template, *extra], capture_output=True, text=True, timeout=30,
                       env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    return p.returncode, p.stdout, p.stderr


def _ours(obj: dict, template: str, allow_missing: bool = True) -> tuple[int, str, str]:
    try:
        return 0, gotemplate.render(template, obj, allow_missing), ""
    except gotemplate.KubectlTemplateError as err:
        text = str(err)
        return 1, err.stdout, "error: " + text + ("" if text.endswith("\n") else "\n")


@pytest.mark.parametrize("obj,templates", [(POD, OK), (CONFIGMAP, CONFIGMAP_OK)], ids=["pod", "configmap"])
def test_templates_print_as_kubectl(obj, templates, tmp_path):
    rc, out, err = _kubectl(obj, SEP.join(templates), tmp_path)
    assert rc == 0, err
    theirs = out.split(SEP)
    assert len(theirs) == len(templates)
    for template, expected in zip(templates, theirs):
        assert _ours(obj, template) == (0, expected, ""), template


def test_failures_report_as_kubectl(tmp_path):
    mismatches = []
    for template in FAILING:
        theirs = _kubectl(POD, template, tmp_path)
        assert theirs[0] == 1, template
        ours = _ours(POD, template)
        if ours != theirs:
            mismatches.append((template, theirs, ours))
    assert mismatches == []


def test_missing_keys_fail_when_not_allowed(tmp_path):
    for template in MISSING_KEY_ERRORS:
        theirs = _kubectl(POD, template, tmp_path, ["--allow-missing-template-keys=false"])
        assert _ours(POD, template, allow_missing=False) == theirs, template
