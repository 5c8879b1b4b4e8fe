"""Differential: `kubelite apply --server-side` prints the same bytes and exit codes as
/usr/bin/kubectl v1.32 `apply --server-side` against the same `kubelite serve`, and leaves the
same managedFields.

kubectl works in namespace `k`, kubelite in namespace `l`, each from the same files, so each
command meets the same state; namespace names, uids, resourceVersions and times are normalised.
"""
from __future__ import annotations

import re
import shutil

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv

pytestmark = pytest.mark.kubectl

FILES = {
    "cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: demo}\n"
          "data:\n  color: blue\n  size: small\n",
    "cm_beta": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  shape: round\n",
    "cm_conflict": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: red\n",
    "cm_v2": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: demo}\n"
             "data:\n  color: blue\n",
    "deploy": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
              "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"
              "    spec:\n      containers:\n      - name: app\n        image: nginx:1.25\n"
              "        ports:\n        - containerPort: 80\n",
    "deploy_sidecar": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
                      "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n"
                      "      labels: {app: web}\n    spec:\n      containers:\n      - name: side\n"
                      "        image: busybox\n",
    "deploy_status": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nstatus:\n  conditions:\n"
                     "  - type: Custom\n    status: 'True'\n    reason: Checked\n",
    "legacy": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: '1'\n  b: '2'\n",
    "legacy_v2": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: '1'\n  c: '3'\n",
}
MANAGED = "-o jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource}={.fieldsV1}{'\\n'}{end}"

COMMANDS = [
    "apply --server-side --field-manager=alpha -f {cm}",
    "apply --server-side --field-manager=alpha -f {cm}",
    "apply --server-side --field-manager=beta -f {cm_beta}",
    f"get configmap settings {MANAGED}",
    "apply --server-side --field-manager=beta -f {cm_conflict}",
    "apply --server-side --field-manager=beta --force-conflicts -f {cm_conflict} -o yaml",
    "apply --server-side --field-manager=alpha -f {cm_v2}",
    f"get configmap settings {MANAGED}",
    "get configmap settings -o jsonpath={.data}",
    "apply --server-side --dry-run=server --field-manager=gamma -f {cm_beta} -o json",
    "apply --server-side --dry-run=client -f {cm_beta}",
    "apply --server-side -f {deploy}",
    "apply --server-side --field-manager=side -f {deploy_sidecar}",
    f"get deployment web {MANAGED}",
    "get deployment web -o jsonpath={.spec.template.spec.containers[*].name}",
    "apply --server-side --subresource=status --field-manager=checker -f {deploy_status}",
    "get deployment web -o jsonpath={.status.conditions[?(@.type=='Custom')].reason}",
    "apply --server-side --subresource=scale -f {deploy_status}",
    "apply --server-side --subresource=foo -f {deploy_status}",
    "apply -f {legacy}",
    "apply --server-side -f {legacy}",
    f"get configmap legacy {MANAGED}",
    "apply --server-side -f {legacy_v2}",
    "get configmap legacy -o jsonpath={.data}",
    "apply view-last-applied configmap legacy",
    "apply --server-side --field-manager=other -f {legacy}",
    "apply --force-conflicts -f {legacy}",
    "apply --server-side=bogus -f {legacy}",
    "apply --server-side --force -f {legacy}",
    "apply --server-side --prune --all -f {legacy}",
    "apply --server-side --prune -l app=demo -f {legacy}",
    # diff --server-side: the server's dry run of the apply, compared with the live object
    "diff --server-side --field-manager=beta -f {cm_conflict}",
    "diff --server-side -f {cm_conflict}",
    "diff --server-side --force-conflicts -f {cm_conflict}",
    "diff --server-side --field-manager=alpha -f {cm_v2}",
    "diff --force-conflicts -f {cm_v2}",
]


def _normal(text: str, namespace: str) -> str:
    text = text.replace(f'"{namespace}"', '"NS"').replace(f"namespace: {namespace}\n", "namespace: NS\n")
    text = text.replace(f'\\"{namespace}\\"', '\\"NS\\"')  # in a last-applied annotation printed as JSON
    text = re.sub(r'("?uid"?: ?)"?[0-9a-f-]{36}"?', r"\1UID", text)
    text = re.sub(r'("?resourceVersion"?: ?)"\d+"', r"\1RV", text)
    text = re.sub(r'"?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"?', "TIME", text)
    text = re.sub(r"/tmp/(LIVE|MERGED)-\w+", r"\1", text)
    text = re.sub(r"^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", "W ", text, flags=re.M)
    text = re.sub(r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4}", "\tDATE", text)
    # the command's own name in the missing-annotation warning (kubectl's cmdBaseName)
    text = text.replace(MISSING_ANNOTATION.format(base="kubectl"), MISSING_ANNOTATION.format(base="kubelite"))
    return text.replace("'kubectl ", "'kubelite ")


MISSING_ANNOTATION = ("required by {base} apply. {base} apply should only be used on resources created declaratively "
                      "by either {base} create --save-config or {base} apply.")


@pytest.fixture
def two_namespaces(served, tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    kubectl = CLI(tmp_path, [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(tmp_path / "c")])
    files = {}
    for name, text in FILES.items():
        files[name] = tmp_path / f"{name}.yaml"
        files[name].write_text(text)
    for ns in ("k", "l"):
        assert kubectl.run("create", "namespace", ns).returncode == 0
    kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(served.kubeconfig)])
    yield kubectl, kubelite, files
    kubectl.run("delete", "namespace", "k", "l")  # waits: the next test creates the same two


def _argv(command: str, files: dict) -> list[str]:
    out = []
    for part in command.split(" "):
        for name, path in files.items():
            part = part.replace("{" + name + "}", str(path))
        out.append(part)
    return out


def _compare(kubectl, kubelite, files: dict, commands: list[str]) -> None:
    """Each command run by kubectl in namespace k and by kubelite in l, in order; every difference."""
    found = []
    for command in commands:
        argv = _argv(command, files)
        want, got = kubectl.run("-n", "k", *argv), kubelite.run("-n", "l", *argv)
        expected = (want.returncode, _normal(want.stdout, "k"), _normal(want.stderr, "k"))
        actual = (got.returncode, _normal(got.stdout, "l"), _normal(got.stderr, "l"))
        if expected != actual:
            found.append((command, expected, actual))
    assert not found, "\n\n".join(f"{c}\nkubectl:  {e!r}\nkubelite: {a!r}" for c, e, a in found)


def test_server_side_apply_matches_kubectl(two_namespaces):
    _compare(*two_namespaces, COMMANDS)


APPLYSET_V1 = FILES["cm"] + "---\n" + FILES["legacy"]
APPLYSET_V2 = FILES["legacy"]


def test_applyset_prune_interoperates_with_kubectl(two_namespaces, tmp_path):
    """kubectl (KUBECTL_APPLYSET=true) updates the ApplySet parent by server-side apply: a set it
    creates is pruned by kubelite, and a set kubelite creates is pruned by kubectl."""
    kubectl, kubelite, _ = two_namespaces
    kubectl.env["KUBECTL_APPLYSET"] = "true"
    v1, v2 = tmp_path / "set-v1.yaml", tmp_path / "set-v2.yaml"
    v1.write_text(APPLYSET_V1)
    v2.write_text(APPLYSET_V2)
    for first, second, ns in ((kubectl, kubelite, "k"), (kubelite, kubectl, "l")):
        created = first.run("-n", ns, "apply", "--prune", "--applyset=set1", "-f", str(v1))
        assert created.returncode == 0, created.stderr
        assert created.stdout == "configmap/settings created\nconfigmap/legacy created\n", created.stdout
        pruned = second.run("-n", ns, "apply", "--prune", "--applyset=set1", "-f", str(v2))
        assert pruned.returncode == 0, pruned.stderr
        assert pruned.stdout == "configmap/legacy unchanged\nconfigmap/settings pruned\n", pruned.stdout
        left = kubectl.run("-n", ns, "get", "configmaps", "-o", "name")
        assert "configmap/settings" not in left.stdout and "configmap/legacy" in left.stdout


# -- -k (a kustomization) and -R (a tree of files) -------------------------------------------------

TREES = {
    "kust/kustomization.yaml": "resources:\n- deploy.yaml\nlabels:\n- pairs: {team: blue}\n  includeSelectors: false\n"
                               "configMapGenerator:\n- name: conf\n  literals: [mode=fast]\n"
                               "nameSuffix: -k\n",
    "kust/deploy.yaml": FILES["deploy"],
    "kust2/kustomization.yaml": "resources:\n- ../kust\npatches:\n- patch: |-\n    - op: replace\n"
                                "      path: /spec/template/spec/containers/0/image\n      value: nginx:1.27\n"
                                "  target: {kind: Deployment}\n",
    "tree/a.yaml": FILES["cm"],
    "tree/notes.txt": "not a manifest\n",
    "tree/sub/b.json": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nested"}, '
                       '"data": {"x": "1"}}\n',
    "tree/sub/deeper/c.yaml": FILES["legacy"] + "---\n" + FILES["deploy"].replace("name: web", "name: tree-web"),
    "tree2/a.yaml": FILES["cm_conflict"],
    "tree2/sub/b.json": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nested"}, '
                        '"data": {"x": "2"}}\n',
}

DIR_COMMANDS = [
    "apply --server-side -k {kust}",
    "apply --server-side -k {kust}",
    f"get deployment web-k {MANAGED}",
    "get configmaps -l team=blue -o name",
    "apply --server-side --field-manager=other -k {kust2}",
    "apply --server-side --field-manager=other --force-conflicts -k {kust2} -o name",
    "get deployment web-k -o jsonpath={.spec.template.spec.containers[0].image}",
    f"get deployment web-k {MANAGED}",
    "apply --server-side --dry-run=server -k {kust} -o yaml",
    "diff --server-side -k {kust}",
    "apply --server-side -f {tree}",
    "apply --server-side -R -f {tree}",
    "apply --server-side -R -f {tree}",
    f"get configmap nested {MANAGED}",
    "get configmaps,deployments -o name",
    "apply --server-side -R --field-manager=other -f {tree2}",
    "apply --server-side -R --field-manager=other --force-conflicts -f {tree2} -o json",
    "get configmap settings nested -o jsonpath={range .items[*]}{.metadata.name}={.data}{'\\n'}{end}",
    "apply --server-side -R --dry-run=server -f {tree} -o name",
    "diff --server-side -R -f {tree}",
    "apply --server-side -k {tree}",
    "apply --server-side -k {kust} -f {tree}",
    # client-side apply of the same trees afterwards: the same collection of objects and errors
    "apply -R -f {tree2} -o json",
    "apply -k {kust} -o yaml",
    "apply -R -f {tree} --dry-run=server -o name",
]


def test_server_side_apply_kustomization_and_recursive_match_kubectl(two_namespaces, tmp_path):
    kubectl, kubelite, files = two_namespaces
    for relative, text in TREES.items():
        path = tmp_path / "trees" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    files = {**files, **{name: tmp_path / "trees" / name for name in ("kust", "kust2", "tree", "tree2")}}
    _compare(kubectl, kubelite, files, DIR_COMMANDS)
