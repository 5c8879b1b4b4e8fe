"""Apply paths beyond the walkthrough: edit-last-applied hand-over (seed 000), the annotation
size limit, --force, conflict retries, the --save-config migrations of seed 000, --wait.

Outputs are compared with real kubectl 1.32 driving the same `kubelite serve`."""
from __future__ import annotations

import json
import pathlib
import stat
import sys

import pytest

from apply_support import HAVE_KUBECTL



def needs_kubectl(test):
    """A differential test against /usr/bin/kubectl (marked `kubectl`, skipped without it)."""
    return pytest.mark.kubectl(pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")(test))

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def deployment(name, replicas=None, app="a", image="nginx"):
    spec = {"selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c", "image": image}]}}}
    if replicas is not None:
        spec = {"replicas": replicas, **spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def write(path: pathlib.Path, *objs) -> str:
    path.write_text("\n".join(json.dumps(o) for o in objs))
    return str(path)


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def live(runner, kind, name):
    return json.loads(ok(runner.kubelite("get", kind, name, "-o", "json")))


def neutral(text: str, tool: str) -> str:
    """The tool's name (in object names, file names, messages) as TOOL; resourceVersions as RV."""
    import re

    text = re.sub(r'"resourceVersion":"\d+"', '"resourceVersion":"RV"', text)
    return re.sub(rf"{tool}(?!\.kubernetes\.io)", "TOOL", text)


def both(served, tmp_path, steps):
    """Run the same steps with kubectl and kubelite on objects named per tool; (rc, out, err) each."""
    results = {}
    for tool in ("kubectl", "kubelite"):
        run = getattr(served, tool)
        outs = []
        for step in steps(tool):
            proc = run(*step)
            outs.append((proc.returncode, neutral(proc.stdout, tool), neutral(proc.stderr, tool)))
        results[tool] = outs
    return results["kubectl"], results["kubelite"]


# -- edit-last-applied: handing a field from the file to an imperative writer ---------------------------


def editor_script(tmp_path: pathlib.Path) -> str:
    """An $EDITOR that deletes the `replicas:` line of the file it is given."""
    script = tmp_path / "drop-replicas.py"
    script.write_text("import re, sys\np = sys.argv[1]\ntext = open(p).read()\n"
                      "open(p, 'w').write(re.sub(r'(?m)^.*replicas:.*\\n', '', text))\n")
    wrapper = tmp_path / "editor.sh"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return str(wrapper)


@needs_kubectl
def test_ownership_handover_with_edit_last_applied(served, tmp_path):
    served.env["KUBE_EDITOR"] = editor_script(tmp_path)
    try:
        def steps(tool):
            name = f"handover-{tool}"
            with_replicas = write(tmp_path / f"{tool}-1.json", deployment(name, replicas=3))
            without = write(tmp_path / f"{tool}-2.json", deployment(name))
            return [("apply", "-f", with_replicas),
                    # seed 000: remove the field from the file and from the annotation ...
                    ("apply", "edit-last-applied", "deployment", name),
                    # ... then the imperative writer owns it
                    ("scale", "deployment", name, "--replicas=5"),
                    ("apply", "-f", without)]

        theirs, ours = both(served, tmp_path, steps)
    finally:
        del served.env["KUBE_EDITOR"]
    assert [o[0] for o in ours] == [0, 0, 0, 0]
    assert ours[1][1] == "deployment.apps/handover-kubelite edited\n".replace("kubelite", "TOOL")
    assert ours == theirs
    for tool in ("kubectl", "kubelite"):
        obj = live(served, "deployment", f"handover-{tool}")
        assert obj["spec"]["replicas"] == 5  # kept: no longer in the last-applied configuration
        assert "replicas" not in json.loads(obj["metadata"]["annotations"][LAST_APPLIED])["spec"]


def test_without_handover_apply_clears_the_removed_field(served, tmp_path):
    run = served.kubelite
    ok(run("apply", "-f", write(tmp_path / "1.json", deployment("nohandover", replicas=3))))
    ok(run("scale", "deployment", "nohandover", "--replicas=5"))
    ok(run("apply", "-f", write(tmp_path / "2.json", deployment("nohandover"))))
    assert live(served, "deployment", "nohandover")["spec"]["replicas"] == 1  # cleared, then defaulted


def test_edit_last_applied_cancelled_when_unchanged(served, tmp_path):
    served.env["KUBE_EDITOR"] = "true"
    try:
        ok(served.kubelite("apply", "-f", write(tmp_path / "1.json", deployment("noedit", replicas=2))))
        before = live(served, "deployment", "noedit")
        proc = served.kubelite("apply", "edit-last-applied", "deployment/noedit")
    finally:
        del served.env["KUBE_EDITOR"]
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "Edit cancelled, no changes made.\n")
    # nothing written but by the controllers (the deployment's status goes on changing meanwhile)
    assert _written_by_clients(live(served, "deployment", "noedit")) == _written_by_clients(before)


def _written_by_clients(obj: dict) -> tuple:
    meta = obj["metadata"]
    return (meta["generation"], meta.get("annotations"),
            [m for m in meta.get("managedFields") or () if m.get("subresource") != "status"])


# -- the 262,144-byte annotation limit ---------------------------------------------------------------


def big_configmap(name, size):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "x" * size}}


@needs_kubectl
def test_annotation_over_the_limit_as_kubectl(served, tmp_path):
    def steps(tool):
        return [("apply", "-f", write(tmp_path / f"{tool}-new.json", big_configmap(f"big-{tool}", 262100))),
                ("create", "-f", write(tmp_path / f"{tool}-small.json", big_configmap(f"grow-{tool}", 10))),
                ("apply", "-f", write(tmp_path / f"{tool}-grow.json", big_configmap(f"grow-{tool}", 262100)))]

    theirs, ours = both(served, tmp_path, steps)
    assert ours == theirs
    assert ours[0] == (1, "", 'The ConfigMap "big-TOOL" is invalid: metadata.annotations: Too long: may not be more '
                              "than 262144 bytes\n")
    assert ours[2][0] == 1 and ours[2][2].endswith(
        'The ConfigMap "grow-TOOL" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes\n')


# -- --force --------------------------------------------------------------------------------------------


@needs_kubectl
def test_force_recreates_when_the_patch_is_invalid(served, tmp_path):
    def steps(tool):
        first = write(tmp_path / f"{tool}-a.json", deployment(f"force-{tool}", app="a"))
        second = write(tmp_path / f"{tool}-b.json", deployment(f"force-{tool}", app="b"))  # selector is immutable
        return [("apply", "-f", first), ("apply", "-f", second), ("apply", "-f", second, "--force")]

    uids = {}
    theirs, ours = both(served, tmp_path, steps)
    assert ours == theirs
    assert [o[0] for o in ours] == [0, 1, 0] and ours[2][1] == "deployment.apps/force-TOOL configured\n"
    for tool in ("kubectl", "kubelite"):
        obj = live(served, "deployment", f"force-{tool}")
        assert obj["spec"]["selector"] == {"matchLabels": {"app": "b"}}
        uids[tool] = obj["metadata"]["uid"]
    assert uids["kubectl"] != uids["kubelite"]


@needs_kubectl
@pytest.mark.parametrize("extra", [["--force", "--dry-run=server"], ["--force", "--prune", "--all"]])
def test_force_flag_errors_as_kubectl(served, tmp_path, extra):
    f = write(tmp_path / "f.json", deployment("force-flags"))
    theirs, ours = served.kubectl("apply", "-f", f, *extra), served.kubelite("apply", "-f", f, *extra)
    assert (ours.returncode, ours.stderr) == (theirs.returncode, theirs.stderr) and ours.returncode == 1


# -- --save-config migrations (seed 000 "Changing management methods") ------------------------------------


def _settled(served, name: str) -> None:
    """Wait until the controllers have written the new Deployment's last status (rolled out), as a person
    exporting it would: an export taken earlier holds a resourceVersion that their next status write
    makes stale, and replace then answers 409 for kubectl and kubelite alike (kube-apiserver does too)."""
    done = served.kubectl("wait", f"deployment/{name}", "--timeout=60s",
                          '--for=jsonpath={.status.conditions[?(@.type=="Progressing")].reason}=NewReplicaSetAvailable')
    assert done.returncode == 0, done.stderr


@needs_kubectl
def test_save_config_migrations(served, tmp_path):
    def steps(tool):
        a, b = f"mig-create-{tool}", f"mig-replace-{tool}"
        create_saved = write(tmp_path / f"{tool}-a.json", deployment(a))
        imperative = write(tmp_path / f"{tool}-b.json", deployment(b))
        exported = tmp_path / f"{tool}-b-live.json"
        return [
            # imperative object configuration -> declarative: create --save-config, then apply
            ("create", "--save-config", "-f", create_saved),
            ("apply", "-f", create_saved),
            # imperative commands -> declarative: export, replace --save-config, then apply only
            ("create", "-f", imperative),
            ("get", "deployment", b, "-o", "json"),
            ("replace", "--save-config", "-f", str(exported)),
            # the export still holds the old resourceVersion: kubectl's apply conflicts on it
            ("apply", "-f", str(exported)),
            # with the server-set metadata removed from the file, apply takes over
            ("apply", "-f", str(tmp_path / f"{tool}-b-clean.json")),
            ("apply", "-f", str(tmp_path / f"{tool}-b-clean.json")),
        ]

    outputs = {}
    for tool in ("kubectl", "kubelite"):
        run = getattr(served, tool)
        outs = []
        for step in steps(tool):
            if step[0] == "get":
                _settled(served, step[2])
            proc = run(*step)
            if step[0] == "get":
                obj = json.loads(proc.stdout)
                obj.pop("status", None)  # the seed's optional step
                (tmp_path / f"{tool}-b-live.json").write_text(json.dumps(obj))
                server_set = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")
                obj["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in server_set}
                (tmp_path / f"{tool}-b-clean.json").write_text(json.dumps(obj))
            outs.append((proc.returncode, neutral(proc.stdout, tool) if step[0] != "get" else "",
                         neutral(proc.stderr, tool)))
        outputs[tool] = outs
    assert outputs["kubelite"] == outputs["kubectl"]
    assert [o[1] for o in outputs["kubelite"]] == [
        "deployment.apps/mig-create-TOOL created\n", "deployment.apps/mig-create-TOOL unchanged\n",
        "deployment.apps/mig-replace-TOOL created\n", "", "deployment.apps/mig-replace-TOOL replaced\n",
        "", "deployment.apps/mig-replace-TOOL configured\n", "deployment.apps/mig-replace-TOOL unchanged\n"]
    conflict = outputs["kubelite"][5]
    assert conflict[0] == 1 and conflict[2].startswith(
        'Error from server (Conflict): error when applying patch:\n{"metadata":{"generation":1,"resourceVersion":"RV"}}'
        '\nto:\nResource: "apps/v1, Resource=deployments", GroupVersionKind: "apps/v1, Kind=Deployment"\n'
        'Name: "mig-replace-TOOL", Namespace: "default"\nfor: ')
    assert all(o[2] == "" for i, o in enumerate(outputs["kubelite"]) if i != 5)  # no missing-annotation warning
    for name in ("mig-create", "mig-replace"):
        ours = live(served, "deployment", f"{name}-kubelite")["metadata"]["annotations"][LAST_APPLIED]
        theirs = live(served, "deployment", f"{name}-kubectl")["metadata"]["annotations"][LAST_APPLIED]
        assert ours == theirs.replace(f"{name}-kubectl", f"{name}-kubelite")


# -- conflicts: re-read and recompute, bounded ------------------------------------------------------------


class ConflictingClient:
    """Wraps a client: before the first `conflicts` patches another writer changes the object and
    the patch is answered 409 Conflict, as the server would for a stale write."""

    def __init__(self, client, conflicts: int):
        self.client, self.conflicts, self.patches, self.gets = client, conflicts, 0, 0

    def __getattr__(self, name):
        return getattr(self.client, name)

    def get(self, *args, **kwargs):
        self.gets += 1
        return self.client.get(*args, **kwargs)

    def patch(self, r, namespace, name, body, content_type, params=None):
        from kubelite.client.errors import ApiError

        self.patches += 1
        if self.patches <= self.conflicts:
            other = {"metadata": {"labels": {f"writer-{self.patches}": "yes"}}}
            self.client.patch(r, namespace, name, json.dumps(other), "merge")
            raise ApiError({"kind": "Status", "status": "Failure", "reason": "Conflict", "code": 409,
                            "message": f'Operation cannot be fulfilled on deployments.apps "{name}": the object has '
                                       "been modified; please apply your changes to the latest version and try again"})
        return self.client.patch(r, namespace, name, body, content_type, params)


@pytest.fixture
def session(tmp_path, monkeypatch):
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kubelite"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    with Session.open(Overrides()) as opened:
        yield opened


def apply_objects(session, objs, **options):
    from kubelite.apply.engine import Applier, ApplyOptions
    from kubelite.manifest import Manifest

    applier = Applier(session, ApplyOptions(namespace="default", retry_sleep=0, **options))
    return applier.run(applier.prepare([Manifest(o, "f.yaml", i, 1) for i, o in enumerate(objs)]))


def test_conflict_is_retried_with_a_fresh_read(session):
    assert not apply_objects(session, [deployment("retry", replicas=1)]).errors
    wrapped = ConflictingClient(session.client, conflicts=2)
    session._client = wrapped
    result = apply_objects(session, [deployment("retry", replicas=1, image="nginx:2")])
    assert not result.errors and result.outcomes[0].verb == "configured"
    assert wrapped.patches == 3 and wrapped.gets == 3  # first read, then one per conflict
    obj = result.outcomes[0].obj
    assert obj["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"
    assert obj["metadata"]["labels"] == {"writer-1": "yes", "writer-2": "yes"}  # the other writer's changes kept


def test_conflicts_are_bounded(session):
    from kubelite.cli import common

    assert not apply_objects(session, [deployment("stuck")]).errors
    wrapped = ConflictingClient(session.client, conflicts=100)
    session._client = wrapped
    result = apply_objects(session, [deployment("stuck", image="nginx:2")], max_retries=3)
    assert wrapped.patches == 4
    [message] = [common.error_message(e) for e in result.errors]
    assert message.startswith('Error from server (Conflict): error when applying patch:\n{"metadata":')
    assert message.endswith(
        '\nto:\nResource: "apps/v1, Resource=deployments", GroupVersionKind: "apps/v1, Kind=Deployment"\n'
        'Name: "stuck", Namespace: "default"\nfor: "f.yaml": error when patching "f.yaml": Operation cannot be '
        'fulfilled on deployments.apps "stuck": the object has been modified; please apply your changes to the '
        "latest version and try again")


# -- --wait ------------------------------------------------------------------------------------------------


def test_wait_returns_once_pruned_objects_are_gone(served, tmp_path):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w-held", "labels": {"w": "1"},
                                                                 "finalizers": ["example.com/hold"]}}
    keep = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w-keep", "labels": {"w": "1"}}}
    ok(served.kubelite("apply", "-f", write(tmp_path / "1.json", cm, keep)))
    only_keep = write(tmp_path / "2.json", keep)
    # a finalizer holds the pruned object: --wait gives up at --timeout with an error
    proc = served.kubelite("apply", "-f", only_keep, "--prune", "-l", "w=1", "--wait", "--timeout=1s")
    assert proc.returncode == 1 and "configmap/w-held pruned\n" in proc.stdout
    # kubectl's klog deprecation warning for the default prune allowlist comes first
    assert proc.stderr.endswith(" prune.go:71] Deprecated: kubectl apply will no longer prune non-namespaced "
                                "resources by default when used with the --namespace flag in a future release. To "
                                "preserve the current behaviour, list the resources you want to target explicitly in "
                                "the --prune-allowlist flag.\n"
                                "error: timed out waiting for the condition on configmaps/w-held\n")
    # without --wait apply returns at once; once the finalizer is gone the object goes
    ok(served.kubelite("patch", "configmap", "w-held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}'))
    assert served.kubelite("get", "configmap", "w-held").returncode == 1


def test_last_applied_subcommand_after_global_flags(served, tmp_path):
    """`kubelite --kubeconfig F apply view-last-applied ...`: the flags move behind `apply`."""
    import subprocess

    ok(served.kubelite("apply", "-f", write(tmp_path / "v.json", deployment("viewed"))))
    proc = subprocess.run([sys.executable, "-m", "kubelite", "--kubeconfig", str(served.kubeconfig), "apply",
                           "view-last-applied", "deployment", "viewed", "-o", "json"], capture_output=True,
                          text=True, env=served.env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {**deployment("viewed"), "metadata": {"annotations": {}, "name": "viewed",
                                                                            "namespace": "default"}}
