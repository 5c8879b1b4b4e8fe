"""`delete -f` of many objects of one kind: kubelite learns which are gone with one LIST per kind and
namespace (kubectl GETs each one); what it prints and its exit code stay kubectl's, including an
object a finalizer keeps (the wait times out on that one only). Compared with kubectl driving the
same `kubelite serve`, each tool in its own namespace."""
from __future__ import annotations

import json

from cli_support import without_reflector_noise

MANY = 12


def manifests(tmp_path, namespace: str):
    docs = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "namespace": namespace},
             "data": {"i": str(i)}} for i in range(MANY)]
    docs[5]["metadata"]["finalizers"] = ["example.com/hold"]
    path = tmp_path / f"{namespace}.json"
    path.write_text("\n".join(json.dumps(d) for d in docs))
    return str(path)


def run_delete(cli, tmp_path, namespace: str):
    assert cli.run("create", "namespace", namespace).returncode == 0
    path = manifests(tmp_path, namespace)
    created = cli.run("apply", "-f", path)
    assert created.returncode == 0, created.stderr
    deleted = cli.run("delete", "-f", path, "--timeout=2s")
    left = cli.run("get", "configmaps", "-n", namespace, "-o", "name")
    cli.run("patch", "configmap", "cm-5", "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    return (deleted.returncode, deleted.stdout, without_reflector_noise(deleted.stderr).replace(namespace, "NS"),
            sorted(n for n in left.stdout.split() if n != "configmap/kube-root-ca.crt"))


def test_delete_many_waits_like_kubectl(remote, kubectl, tmp_path):
    theirs = run_delete(kubectl, tmp_path, "del-kubectl")
    mine = run_delete(remote, tmp_path, "del-kubelite")
    assert mine == theirs
    assert theirs[0] == 1 and theirs[3] == ["configmap/cm-5"]  # the held one times out, the rest are gone
