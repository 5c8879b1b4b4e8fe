"""Seed 004 part 5, "Update API Objects in Place Using kubectl patch", verbatim with kubelite:
the patch-demo Deployment, a strategic patch adding a container, tolerations replaced, a merge
patch replacing the containers, the retainkeys-demo Forbidden error and the `$retainKeys` fix,
and the equivalent JSON/YAML `--patch` forms - against the embedded cluster and `kubelite serve`."""
from __future__ import annotations

import json
import pathlib

import yaml

DATA = pathlib.Path(__file__).parent.parent / "data" / "cli" / "patch"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def _live(cli, name: str) -> dict:
    r = cli.run("get", "deployment", name, "--output", "yaml")
    assert r.returncode == 0, r.stderr
    return yaml.safe_load(r.stdout)


def _pod_spec(cli) -> dict:
    return _live(cli, "patch-demo")["spec"]["template"]["spec"]


def _patch_flow(cli) -> None:
    r = cli.run("apply", "-f", str(DATA / "deployment-patch.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo created\n"), r.stderr

    # A strategic merge patch merges the containers list (patchStrategy merge, key name).
    r = cli.run("patch", "deployment", "patch-demo", "--patch", _read("patch-file.yaml"))
    assert (r.returncode, r.stdout, r.stderr) == (0, "deployment.apps/patch-demo patched\n", "")
    containers = _pod_spec(cli)["containers"]
    assert [(c["name"], c["image"], c["imagePullPolicy"]) for c in containers] == [
        ("patch-demo-ctr-2", "redis", "Always"), ("patch-demo-ctr", "nginx", "Always")]

    # The same patch again changes nothing.
    r = cli.run("patch", "deployment", "patch-demo", "--patch", _read("patch-file.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo patched (no change)\n")

    # tolerations have no patch strategy: the list is replaced.
    r = cli.run("patch", "deployment", "patch-demo", "--patch", _read("patch-file-tolerations.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo patched\n"), r.stderr
    assert _pod_spec(cli)["tolerations"] == [{"effect": "NoSchedule", "key": "disktype", "value": "ssd"}]

    # A JSON merge patch replaces the whole containers list.
    r = cli.run("patch", "deployment", "patch-demo", "--type", "merge", "--patch", _read("patch-file-2.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo patched\n"), r.stderr
    containers = _pod_spec(cli)["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [
        ("patch-demo-ctr-3", "gcr.io/google-samples/node-hello:1.0")]

    # retainKeys: type Recreate next to a rollingUpdate is Forbidden; $retainKeys clears it.
    r = cli.run("apply", "-f", str(DATA / "deployment-retainkeys.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/retainkeys-demo created\n"), r.stderr
    r = cli.run("patch", "deployment", "retainkeys-demo", "--patch", _read("patch-file-no-retainkeys.yaml"))
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ('The Deployment "retainkeys-demo" is invalid: spec.strategy.rollingUpdate: Forbidden: '
                        "may not be specified when strategy `type` is 'Recreate'\n")
    r = cli.run("patch", "deployment", "retainkeys-demo", "--patch", _read("patch-file-retainkeys.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/retainkeys-demo patched\n"), r.stderr
    assert _live(cli, "retainkeys-demo")["spec"]["strategy"] == {"type": "Recreate"}

    # Alternate forms: YAML and JSON, from a file's text or inline; all equivalent.
    r = cli.run("patch", "deployment", "patch-demo", "--patch", _read("patch-file.yaml"))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo patched\n"), r.stderr
    after_yaml = _pod_spec(cli)
    for text in (_read("patch-file.yaml"),
                 "spec:\n template:\n  spec:\n   containers:\n   - name: patch-demo-ctr-2\n     image: redis",
                 _read("patch-file.json"),
                 '{"spec": {"template": {"spec": {"containers": [{"name": "patch-demo-ctr-2","image": "redis"}]}}}}'):
        r = cli.run("patch", "deployment", "patch-demo", "--patch", text)
        assert (r.returncode, r.stdout) == (0, "deployment.apps/patch-demo patched (no change)\n"), r.stderr
        assert _pod_spec(cli) == after_yaml
    assert [c["name"] for c in after_yaml["containers"]] == ["patch-demo-ctr-2", "patch-demo-ctr-3"]

    # --patch-file and -o json print the patched object.
    r = cli.run("patch", "deployment", "patch-demo", "--patch-file", str(DATA / "patch-file.json"), "-o", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["spec"]["template"]["spec"]["containers"][0]["name"] == "patch-demo-ctr-2"


def test_seed004_patch_embedded(embedded):
    _patch_flow(embedded)


def test_seed004_patch_served(remote):
    _patch_flow(remote)


def test_patch_errors(embedded, tmp_path):
    r = embedded.run("patch", "deployment", "nope", "-p", '{"spec":{"replicas":4}}')
    assert (r.returncode, r.stdout, r.stderr) == (1, "", 'Error from server (NotFound): deployments.apps "nope" '
                                                         "not found\n")
    r = embedded.run("patch", "deployment", "x")
    assert (r.returncode, r.stderr) == (1, "error: must specify --patch or --patch-file containing the contents "
                                           "of the patch\n")
    r = embedded.run("patch", "deployment", "x", "-p", "{}", "--type", "foo")
    assert (r.returncode, r.stderr) == (1, 'error: --type must be one of [json merge strategic], not "foo"\n')
    r = embedded.run("patch", "deployment", "-p", "{}")
    assert (r.returncode, r.stderr) == (1, "error: resource(s) were provided, but no name was specified\n")
    r = embedded.run("patch", "deployment", "x", "-p", "{}", "--local")
    assert (r.returncode, r.stderr) == (1, "error: cannot specify --local and server resources\n")
