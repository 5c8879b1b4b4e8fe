"""Differential: the last flags kubelite lacked (replace/apply --subresource, get --server-print,
apply edit-last-applied --field-manager/--validate) print the same bytes and exit codes as
/usr/bin/kubectl against the same `kubelite serve`.

kubectl works in namespace `k`, kubelite in namespace `l`, both holding the same objects, so each
command meets the same state; the namespace names, the tool's name in usage hints (and object ages)
are the only things normalised.
"""
from __future__ import annotations

import pathlib
import re
import shutil

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv
from test_serve_support import namespaces_only_cluster  # noqa: F401 (a fixture)

pytestmark = pytest.mark.kubectl

HERE = pathlib.Path(__file__).parent
STATUS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d2
spec:
  replicas: 1
  selector:
    matchLabels: {app: d2}
  template:
    metadata:
      labels: {app: d2}
    spec:
      containers:
        - name: c
          image: nginx
status:
  replicas: 7
  observedGeneration: 3
"""
SCALE = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: d2\nspec:\n  replicas: 4\n"
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n  labels: {app: x}\ndata: {a: b}\n"

# Run in order; each one sees the state the previous ones left (identically on both sides).
COMMANDS = [
    # replace --subresource: a PUT of .../status (or /scale), the object's spec untouched
    "replace --subresource=status -f {status}",
    "replace --subresource=status -f {status} -o jsonpath={.status.replicas}/{.spec.replicas}",
    "get deployment d2 -o jsonpath={.status.replicas}/{.spec.replicas}",
    "replace --subresource=status --dry-run=server -f {status}",
    "replace --subresource=status --dry-run=client -f {status} -o name",
    "replace --subresource=scale -f {scale}",
    "replace --subresource=scale -f {status}",
    "replace --subresource=foo -f {status}",
    "replace --subresource=status -f {configmap}",
    "replace --subresource=status --force -f {status}",
    # apply --subresource: only with --server-side
    "apply --subresource=status -f {status}",
    "apply --subresource=status --prune --all -f {status}",
    "apply --subresource=status",
    "apply --subresource=status --force-conflicts -f {status}",
    "apply --subresource=status --prune -f {status}",
    # get --server-print=false: NAME and AGE from the objects themselves
    "get configmaps --server-print=false", "get configmap cm1 --server-print=false",
    "get deployments,configmaps --server-print=false", "get configmaps --server-print=false -o wide",
    "get configmaps --server-print=false --show-labels", "get configmaps --server-print=false -L app --no-headers",
    "get configmaps --server-print=false --show-kind", "get configmaps --server-print=false --sort-by=.metadata.name",
    "get configmaps --server-print=false -o name", "get configmaps --server-print=foo", "get configmaps --server-print",
    "get configmaps --server-print=true", "get configmap nope --server-print=false", "get pods --server-print=false",
    "get configmap cm1 nope --server-print=false", "get deployment/d2 configmap/cm1 --server-print=false",
    "get configmaps -l app=x --server-print=false", "get configmaps --server-print=0 --chunk-size=1",
    "get deployment d2 --subresource=scale --server-print=false",
    "get configmaps --server-print=false -w --request-timeout=1",
    "get configmap cm1 --server-print=false -w --request-timeout=1",
    "get configmaps --server-print=false -w --request-timeout=1 --sort-by=.metadata.name",
    "get configmaps --server-print=false --watch-only --request-timeout=1",
]


def _aged(result: tuple) -> tuple:
    return tuple(re.sub(r" +", " ", re.sub(r"\b\d+s\b", "AGE", part)) if isinstance(part, str) else part
                 for part in result)


def _normal(text: str, namespace: str) -> str:
    text = text.replace(f'"{namespace}"', "NS").replace(f"namespace: {namespace}\n", "namespace: NS\n")
    return text.replace(f" in {namespace} namespace.", " in NS namespace.").replace("'kubectl ", "'kubelite ")


@pytest.fixture(scope="module")
def served(namespaces_only_cluster):
    """The statuses written by hand here stay as written: a deployment controller would rewrite
    them between the kubectl and the kubelite command."""
    return namespaces_only_cluster


@pytest.fixture
def two_namespaces(served, tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    kubectl = CLI(tmp_path, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "c")])
    files = {}
    for name, text in (("status", STATUS), ("scale", SCALE), ("configmap", CONFIGMAP)):
        files[name] = tmp_path / f"{name}.yaml"
        files[name].write_text(text)
    for ns in ("k", "l"):
        assert kubectl.run("create", "namespace", ns).returncode == 0
        assert kubectl.run("-n", ns, "create", "deployment", "d2", "--image=nginx").returncode == 0
        assert kubectl.run("-n", ns, "create", "-f", str(files["configmap"])).returncode == 0
    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    yield kubectl, kubelite, files
    # Waits: a namespace takes a few seconds to go (the namespace controller), and the next test
    # creates the same two.
    kubectl.run("delete", "namespace", "k", "l")


def _argv(command: str, files: dict) -> list[str]:
    return [part.format(**{k: str(v) for k, v in files.items()}) if "{" in part and "{." not in part else part
            for part in command.split()]


def _mismatches(kubectl, kubelite, files, commands) -> list:
    found = []
    for command in commands:
        argv = _argv(command, files)
        want, got = kubectl.run("-n", "k", *argv), kubelite.run("-n", "l", *argv)
        expected = (want.returncode, _normal(want.stdout, "k"), _normal(want.stderr, "k"))
        actual = (got.returncode, _normal(got.stdout, "l"), _normal(got.stderr, "l"))
        if expected != actual and _aged(expected) == _aged(actual):
            continue  # an AGE ticked over between the two runs
        if expected != actual:
            found.append((command, expected, actual))
    return found


def test_subresource_flags_match_kubectl(two_namespaces):
    found = _mismatches(*two_namespaces, COMMANDS)
    assert not found, "\n\n".join(f"{c}\nkubectl:  {e!r}\nkubelite: {a!r}" for c, e, a in found)


# apply edit-last-applied: (flags, what the editor does); the PATCH kubectl sends (-v=6) carries
# fieldManager and fieldValidation, which kubelite must send alike
EDITS = [
    ([], "change"), (["--field-manager=fm1", "--validate=warn"], "change"), (["--validate=false"], "change"),
    (["--validate"], "change"), (["--validate=ignore", "-o", "json"], "change"), (["--field-manager="], "change"),
    (["--validate=bogus"], "change"), (["-f", "{configmap}", "configmap/cm1"], "change"), (["--validate=strict", "--field-manager=fm2"], "keep"),
    (["-f", "{configmap}", "--field-manager=fm3"], "change"), (["--field-manager=fm4", "-o", "yaml"], "change"),
]
_EDITOR = "#!/bin/sh\n{}\n"
_PATCH_LINE = re.compile(r"PATCH https://[^/]+(\S+)")


def _requests(stderr: str) -> list[str]:
    return [m.group(1) for m in map(_PATCH_LINE.search, stderr.splitlines()) if m]


def test_edit_last_applied_manager_and_validation_match_kubectl(two_namespaces, tmp_path):
    kubectl, kubelite, files = two_namespaces
    editor = tmp_path / "editor.sh"
    found = []
    for flags, action in EDITS:
        script = "sed -i 's/\"a\": \"b\"/\"a\": \"c\"/; s/a: b/a: c/' \"$1\"" if action == "change" else "true"
        editor.write_text(_EDITOR.format(script))
        editor.chmod(0o755)
        runs = []
        for cli, ns in ((kubectl, "k"), (kubelite, "l")):
            # the same starting annotation on both sides before each edit
            reset = cli.run("-n", ns, "apply", "set-last-applied", "--create-annotation", "-f",
                            str(files["configmap"]))
            assert reset.returncode == 0, reset.stderr
            cli.env["KUBE_EDITOR"] = str(editor)
            argv = [part.format(**{k: str(v) for k, v in files.items()}) for part in flags]
            target = [] if "-f" in argv else ["configmap/cm1"]
            r = cli.run("-n", ns, "apply", "edit-last-applied", *target, "-v=6", *argv)
            errors = [line for line in r.stderr.splitlines() if line.startswith(("error", "Edit"))]
            requests = [_normal(path, ns).replace(f"/namespaces/{ns}/", "/namespaces/NS/") for path in
                        _requests(r.stderr)]
            view = cli.run("-n", ns, "apply", "view-last-applied", "configmap/cm1", "-o", "json")
            runs.append((r.returncode, _normal(r.stdout, ns), errors, requests, _normal(view.stdout, ns)))
        if runs[0] != runs[1]:
            found.append((flags, action, *runs))
    assert not found, "\n\n".join(f"{f} {a}\nkubectl:  {k!r}\nkubelite: {lt!r}" for f, a, k, lt in found)
