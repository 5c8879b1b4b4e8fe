"""ApplySet pruning (KEP-3659) against `kubelite serve`, checked against real kubectl 1.32.

kubectl's dry-run output (member labels and last-applied bytes), the parent body it sends
(logged with -v=8), its parent validation and its flag errors are compared with kubelite's. Sets
written by one tool are pruned by the other, with client-side member applies and with
`--server-side` (each step's output and the set left behind compared with kubectl's own).
"""
from __future__ import annotations

import json
import re

import pytest

from apply_support import HAVE_KUBECTL

from kubelite.apply.applyset import applyset_id, group_kind, kinds_annotation, namespaces_annotation, tooling_base



def needs_kubectl(test):
    """A differential test against /usr/bin/kubectl (marked `kubectl`, skipped without it)."""
    return pytest.mark.kubectl(pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")(test))

APPLYSET_ENV = {"KUBECTL_APPLYSET": "true"}



def cm(name, namespace=None, labels=None):
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": name}}


def deployment(name):
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels},
                                                                       "spec": {"containers": [{"name": "c",
                                                                                                "image": "nginx"}]}}}}


def write(path, *objs) -> str:
    path.write_text("\n".join(json.dumps(o) for o in objs))
    return str(path)


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def get(runner, *args):
    return json.loads(ok(runner.kubelite("get", *args, "-o", "json")))


def kubectl(runner, *args, stdin=None):
    import subprocess

    return subprocess.run(["/usr/bin/kubectl", "--kubeconfig", str(runner.kubeconfig), "--cache-dir",
                           str(runner.base / "cache"), *args], input=stdin, capture_output=True, text=True,
                          timeout=60, env=dict(runner.env, **APPLYSET_ENV))


# -- pure pieces ------------------------------------------------------------------------------------


def test_id_format_and_annotations():
    # id observed in kubectl 1.32's request for `--applyset=myset -n default` (Secret parent)
    assert applyset_id("myset", "default", "Secret", "") == "applyset-51uXdjs_k8zt9KVdAtPaWnW_O9B-EVzd2Bkztfa9DSA-v1"
    assert group_kind("Deployment", "apps") == "Deployment.apps" and group_kind("ConfigMap", "") == "ConfigMap"
    assert kinds_annotation({"Deployment.apps", "ConfigMap", "Namespace"}) == "ConfigMap,Deployment.apps,Namespace"
    assert namespaces_annotation({"default", "b", "a"}, "default") == "a,b"
    assert tooling_base("kubectl/v1.32.4") == "kubectl" and tooling_base("a/b/v1") == "a/b"


# -- against kubectl ----------------------------------------------------------------------------------


@needs_kubectl
def test_members_as_kubectl_labels_them(served, tmp_path):
    f = write(tmp_path / "m.json", cm("dry-a"), deployment("dry-d"))
    args = ["apply", "-n", "default", "--prune", "--applyset=dryset", "-f", f, "--dry-run=client", "-o", "json"]
    theirs = json.loads(ok(kubectl(served, *args)))
    ours = json.loads(ok(served.kubelite(*args)))
    assert ours == theirs
    labels = theirs["items"][0]["metadata"]["labels"]
    assert labels == {"applyset.kubernetes.io/part-of": applyset_id("dryset", "default", "Secret", "")}


@needs_kubectl
def test_parent_as_kubectl_writes_it(served, tmp_path):
    # (with -n every namespaced member is in the parent's namespace; Namespaces are cluster-scoped)
    f = write(tmp_path / "m.json", cm("pa"), deployment("pd"), {"apiVersion": "v1", "kind": "Namespace",
                                                                 "metadata": {"name": "ns-pa"}})
    args = ["apply", "-n", "default", "--prune", "--applyset=configmaps/parent-set", "-f", f]
    proc = kubectl(served, *args, "-v=8")
    body = _parent_body(proc.stderr)
    assert body is not None, proc.stderr[-2000:]
    ok(served.kubelite(*args))
    live = get(served, "configmap", "parent-set", "-n", "default")["metadata"]
    assert live["labels"] == body["metadata"]["labels"]
    theirs = dict(body["metadata"]["annotations"])
    ours = dict(live["annotations"])
    assert tooling_base(ours.pop("applyset.kubernetes.io/tooling")) == \
        tooling_base(theirs.pop("applyset.kubernetes.io/tooling")) == "kubectl"
    assert ours == theirs == {"applyset.kubernetes.io/additional-namespaces": "",
                              "applyset.kubernetes.io/contains-group-kinds": "ConfigMap,Deployment.apps,Namespace"}


def _parent_body(log: str) -> dict | None:
    for line in log.splitlines():
        m = re.search(r'"Request Body" body="(.*)"$', line)
        if m and "applyset.kubernetes.io/id" in m.group(1):
            return json.loads(m.group(1).encode().decode("unicode_escape"))
    return None


@needs_kubectl
def test_kubelite_prunes_a_set_kubectl_wrote(served, tmp_path):
    f = write(tmp_path / "m.json", cm("k-keep"), cm("k-gone"))
    base = ["apply", "-n", "default", "--prune", "--applyset=kset"]
    # kubectl writes the members and (by server-side apply) the parent
    ok(kubectl(served, *base, "-f", f))

    proc = served.kubelite(*base, "-f", write(tmp_path / "less.json", cm("k-keep")))
    assert ok(proc) == "configmap/k-keep unchanged\nconfigmap/k-gone pruned\n"
    names = {i["metadata"]["name"] for i in get(served, "configmaps", "-n", "default")["items"]}
    assert "k-keep" in names and "k-gone" not in names


@needs_kubectl
def test_kubectl_accepts_a_set_kubelite_wrote(served, tmp_path):
    f = write(tmp_path / "m.json", cm("l-keep"), cm("l-gone"))
    base = ["apply", "-n", "default", "--prune", "--applyset=lset"]
    ok(served.kubelite(*base, "-f", f))
    proc = kubectl(served, *base, "-f", write(tmp_path / "less.json", cm("l-keep")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "configmap/l-keep unchanged\nconfigmap/l-gone pruned\n"


@needs_kubectl
@pytest.mark.parametrize("args", [
    ["--prune", "--applyset=nsless"],
    ["-n", "default", "--prune", "--applyset=configmaps/"],
    ["-n", "default", "--prune", "--applyset=pods/x"],
    ["-n", "default", "--prune", "--applyset=foos/x"],
    ["-n", "default", "--applyset=x"],
    ["-n", "default", "--prune", "--applyset=x", "--all"],
    ["-n", "default", "--prune", "--applyset=x", "-l", "a=b"],
])
def test_errors_as_kubectl(served, tmp_path, args):
    f = write(tmp_path / "m.json", cm("err-a"))
    theirs, ours = kubectl(served, "apply", "-f", f, *args), served.kubelite("apply", "-f", f, *args)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)


# -- safety and lifecycle (kubelite alone) -------------------------------------------------------------


def test_prune_touches_only_members_of_this_set(served, tmp_path):
    run = served.kubelite
    first = write(tmp_path / "first.json", cm("s-keep"), cm("s-gone"), deployment("s-dep"))
    ok(run("apply", "-n", "default", "--prune", "--applyset=safe", "-f", first))
    parent = get(served, "secret", "safe", "-n", "default")["metadata"]["annotations"]
    assert parent["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap,Deployment.apps"
    # not members: no label, another set's label, a plain apply with last-applied
    ok(run("create", "-f", write(tmp_path / "plain.json", cm("s-plain"))))
    ok(run("apply", "-n", "default", "--prune", "--applyset=another", "-f",
           write(tmp_path / "another.json", cm("s-another"))))
    ok(run("apply", "-f", write(tmp_path / "annotated.json", cm("s-annotated"))))

    second = write(tmp_path / "second.json", cm("s-keep"))
    proc = run("apply", "-n", "default", "--prune", "--applyset=safe", "-f", second, "--dry-run=server")
    assert ok(proc) == ("configmap/s-keep unchanged (server dry run)\n"
                        "configmap/s-gone pruned (server dry run)\n"
                        "deployment.apps/s-dep pruned (server dry run)\n")
    assert get(served, "configmap", "s-gone", "-n", "default")
    proc = run("apply", "-n", "default", "--prune", "--applyset=safe", "-f", second)
    assert ok(proc) == "configmap/s-keep unchanged\nconfigmap/s-gone pruned\ndeployment.apps/s-dep pruned\n"
    left = {i["metadata"]["name"] for i in get(served, "configmaps", "-n", "default")["items"]}
    assert {"s-keep", "s-plain", "s-another", "s-annotated"} <= left and "s-gone" not in left
    assert get(served, "secret", "another", "-n", "default")
    parent = get(served, "secret", "safe", "-n", "default")["metadata"]["annotations"]
    assert parent["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap"
    assert parent["applyset.kubernetes.io/additional-namespaces"] == ""


def test_parent_checks(served, tmp_path):
    run = served.kubelite
    f = write(tmp_path / "m.json", cm("p-a"))
    ok(run("create", "-f", write(tmp_path / "foreign.json", {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "foreign", "annotations": {
            "applyset.kubernetes.io/tooling": "helm/v3"}}})))
    proc = run("apply", "-n", "default", "--prune", "--applyset=foreign", "-f", f)
    assert proc.returncode == 1
    assert proc.stderr == ('error: ApplySet parent object "secrets./foreign" already exists and is managed by '
                           'tooling "helm" instead of "kubectl"\n')
    ok(run("create", "-f", write(tmp_path / "wrongid.json", {
        "apiVersion": "v1", "kind": "Secret", "metadata": {
            "name": "wrongid", "labels": {"applyset.kubernetes.io/id": "applyset-x-v1"},
            "annotations": {"applyset.kubernetes.io/tooling": "kubectl/v1.32.0"}}})))
    proc = run("apply", "-n", "default", "--prune", "--applyset=wrongid", "-f", f)
    assert proc.stderr.startswith('error: ApplySet parent object "secrets./wrongid" exists and has incorrect value '
                                  'for label "applyset.kubernetes.io/id" (got: applyset-x-v1, want: applyset-')
    labelled = write(tmp_path / "labelled.json", cm("p-b", labels={"applyset.kubernetes.io/part-of": "x"}))
    proc = run("apply", "-n", "default", "--prune", "--applyset=lab", "-f", labelled)
    assert proc.stderr == 'error: ApplySet label "applyset.kubernetes.io/part-of" already set in input data\n'


# -- server-side apply (--server-side --prune --applyset) across the two tools ------------------------

SSA_SET = ["apply", "--server-side", "--prune", "--applyset=sset"]


def _set_state(runner, namespace: str) -> dict:
    """The parent Secret and the members left in `namespace`, with what differs by namespace and
    run (the set's id, uids, versions, times) taken out."""
    set_id = applyset_id("sset", namespace, "Secret", "")
    text = ok(runner.kubelite("get", "secrets,configmaps,deployments", "-n", namespace, "-o", "json",
                              "--show-managed-fields"))
    text = text.replace(set_id, "ID").replace(f'"{namespace}"', '"NS"')
    out = {}
    for obj in json.loads(text)["items"]:
        meta = obj["metadata"]
        if meta["name"] == "kube-root-ca.crt":
            continue
        managed = [{k: v for k, v in e.items() if k != "time"} for e in meta.get("managedFields", [])]
        annotations = meta.get("annotations") or {}
        if "applyset.kubernetes.io/tooling" in annotations:  # kubectl/VERSION of the last writer
            annotations["applyset.kubernetes.io/tooling"] = tooling_base(annotations["applyset.kubernetes.io/tooling"])
        out[f'{obj["kind"]}/{meta["name"]}'] = {
            "labels": meta.get("labels"), "annotations": meta.get("annotations"), "managedFields": managed,
            "data": obj.get("data")}
    return out


def _prune_lines_sorted(stdout: str) -> str:
    """kubectl prunes a set's kinds in Go's map order: the `pruned` lines compared sorted."""
    lines = stdout.splitlines(keepends=True)
    return "".join([line for line in lines if " pruned" not in line] +
                   sorted(line for line in lines if " pruned" in line))


@needs_kubectl
def test_server_side_sets_interoperate_with_kubectl(served, tmp_path):
    """kubectl (KUBECTL_APPLYSET=true) and kubelite each create a set by server-side apply that the
    other prunes; every step prints what kubectl prints doing both steps itself, and the set left
    behind (parent, members, managedFields) is the same."""
    first = write(tmp_path / "first.json", cm("s-keep"), cm("s-gone"), deployment("s-dep"))
    second = write(tmp_path / "second.json", cm("s-keep"))
    tools = {"kubectl": lambda *a: kubectl(served, *a), "kubelite": served.kubelite}
    runs = {}
    for creator, pruner in (("kubectl", "kubectl"), ("kubectl", "kubelite"), ("kubelite", "kubectl"),
                            ("kubelite", "kubelite")):
        namespace = f"sset-{creator[-3:]}-{pruner[-3:]}"
        ok(kubectl(served, "create", "namespace", namespace))
        steps = [(creator, ["-f", first]), (pruner, ["-f", second, "--dry-run=server"]), (pruner, ["-f", second]),
                 (creator, ["-f", second])]
        outputs = []
        for tool, args in steps:
            proc = tools[tool](*SSA_SET, "-n", namespace, *args)
            outputs.append((proc.returncode, _prune_lines_sorted(proc.stdout), proc.stderr))
        runs[(creator, pruner)] = outputs, _set_state(served, namespace)

    want_outputs, want_state = runs[("kubectl", "kubectl")]
    assert want_outputs == [
        (0, "configmap/s-keep serverside-applied\nconfigmap/s-gone serverside-applied\n"
            "deployment.apps/s-dep serverside-applied\n", ""),
        (0, "configmap/s-keep serverside-applied (server dry run)\nconfigmap/s-gone pruned (server dry run)\n"
            "deployment.apps/s-dep pruned (server dry run)\n", ""),
        (0, "configmap/s-keep serverside-applied\nconfigmap/s-gone pruned\ndeployment.apps/s-dep pruned\n", ""),
        (0, "configmap/s-keep serverside-applied\n", "")]
    assert set(want_state) == {"Secret/sset", "ConfigMap/s-keep"}
    assert want_state["Secret/sset"]["annotations"]["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap"
    for pair, (outputs, state) in runs.items():
        assert outputs == want_outputs, pair
        assert state == want_state, pair
