"""`kubelite apply` of hostile or broken objects (issue 19): the same one-line error and exit
code as /usr/bin/kubectl against the same `kubelite serve`, and never a Python traceback,
whether the cluster is served or embedded."""
from __future__ import annotations

import json

import pytest

CASES = {
    # a name with NUL: the server refuses it (422); no storage key is ever made of it
    "nul.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\0b"\ndata:\n  a: b\n',
    # half a UTF-16 pair: Go reads U+FFFD, which no name may hold
    "surrogate.json": '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x\\ud800"}}',
    # not JSON: encoding/json's error and offset
    "nan.json": '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nan"},"data":{"a":NaN}}',
    "infinity.json": '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"inf"},"data":{"a":-Infinity}}',
    # go-yaml's alias expansion guard
    "bomb.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" + "".join(
        f"{name}: &{name} [{','.join(['*' + prev] * 9) if prev else 'lol'}]\n"
        for prev, name in zip([""] + list("abcdefghi"), "abcdefghij")),
    # 10,000 levels are read (as kubectl reads them); the unknown field is then refused (Strict)
    "deep.json": '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":'
                 + "[" * 9998 + "]" * 9998 + "}",
}
# objects apply cannot name (kubectl's errors, the second over several lines)
NAMELESS = {
    "generatename.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n",
    "noname.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n",
}


@pytest.mark.parametrize("name", sorted(CASES) + sorted(NAMELESS))
def test_apply_errors_as_kubectl(remote, kubectl, tmp_path, name):
    ours = apply_file(remote, tmp_path, name, {**CASES, **NAMELESS}[name])
    theirs = kubectl.run("apply", "-f", str(tmp_path / name))
    assert theirs.returncode != 0, theirs.stdout
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)


def apply_file(cli, tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    done = cli.run("apply", "-f", str(path))
    assert "Traceback" not in done.stderr
    return done


@pytest.mark.parametrize("name", sorted(CASES))
def test_apply_embedded_fails_in_one_line(embedded, tmp_path, name):
    done = apply_file(embedded, tmp_path, name, CASES[name])
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith(("error: ", "The ConfigMap ", "Error from server ")), done.stderr


@pytest.mark.parametrize("name", sorted(NAMELESS))
def test_apply_embedded_refuses_nameless_objects_before_any_request(embedded, tmp_path, name):
    done = apply_file(embedded, tmp_path, name, NAMELESS[name])
    assert done.returncode == 1
    assert "MethodNotAllowed" not in done.stderr
    assert done.stderr.rstrip().endswith(("cannot use generate name with apply", "resource name may not be empty"))


def test_lone_surrogate_in_data_is_stored_as_replacement_character(embedded, tmp_path):
    text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"text"},"data":{"a":"x\\udc00y"}}'
    done = apply_file(embedded, tmp_path, "cm.json", text)
    assert done.returncode == 0, done.stderr
    got = embedded.run("get", "configmap", "text", "-o", "json")
    assert json.loads(got.stdout)["data"] == {"a": "x\ufffdy"}
