"""Differential: `auth reconcile -f` by real kubectl 1.32 and by kubelite against one `kubelite serve`.

Each side works on its own copies of the objects (names and namespaces carry the side's suffix),
so the two runs see the same starting state; outputs must be equal once the suffix is removed.
After each step the resulting objects (rules, subjects, roleRef) must be equal too.
"""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.kubectl

SIDES = ("k", "l")  # k: kubectl, l: kubelite


def manifest(side: str, *docs: str) -> str:
    return "\n---\n".join(docs).replace("@", side)


def role(name: str, *rules: str, namespace: str = "rec-@", extra: str = "") -> str:
    kind = "Role" if namespace else "ClusterRole"
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}-@{ns}{extra}\n"
            "rules:\n" + "".join(rules))


def binding(name: str, role_name: str, *subjects: str, namespace: str = "rec-@", role_kind: str = "Role") -> str:
    kind = "RoleBinding" if namespace else "ClusterRoleBinding"
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return (f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}-@{ns}\n"
            f"roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: {role_kind}\n  name: {role_name}-@\n"
            "subjects:\n" + "".join(subjects))


PODS_READ = "- apiGroups: ['']\n  resources: [pods]\n  verbs: [get, list]\n"
DEPLOY_ALL = "- apiGroups: [apps]\n  resources: [deployments, replicasets]\n  verbs: [get, watch]\n"
HEALTH = "- nonResourceURLs: [/healthz, /livez]\n  verbs: [get]\n"
CONFIGMAPS_NAMED = "- apiGroups: ['']\n  resources: [configmaps]\n  resourceNames: [a, b]\n  verbs: [get]\n"
JANE = "- apiGroup: rbac.authorization.k8s.io\n  kind: User\n  name: jane\n"
DEVS = "- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: devs\n"
BOT = "- kind: ServiceAccount\n  name: bot\n  namespace: rec-@\n"
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored-@\n  namespace: default\ndata: {a: b}\n"


def reconcile_both(kubectl, remote, tmp_path, docs: tuple[str, ...], *flags: str):
    """Run reconcile on each side with its own copy of `docs`; both answers with the suffix removed."""
    answers = []
    for side, cli in zip(SIDES, (kubectl, remote)):
        path = tmp_path / f"rbac-{side}.yaml"
        path.write_text(manifest(side, *docs))
        done = cli.run("auth", "reconcile", "-f", str(path), *flags)
        answers.append((done.returncode, unsuffixed(done.stdout, side), unsuffixed(done.stderr, side)))
    assert answers[1] == answers[0], flags
    return answers[0]


def unsuffixed(text: str, side: str) -> str:
    return text.replace(f"-{side}", "-@").replace(f"rec-{side}", "rec-@")


def state(kubectl, side: str, *targets: str) -> list:
    """The RBAC content of objects on one side (what reconcile manages), suffix removed."""
    out = []
    for target in targets:
        kind, _, name = target.partition("/")
        ns = ["-n", f"rec-{side}"] if kind in ("role", "rolebinding") else []
        got = kubectl.run("get", f"{kind}/{name}-{side}", *ns, "-o", "json")
        if got.returncode:
            out.append(("absent", target))
            continue
        obj = json.loads(got.stdout)
        content = {k: obj.get(k) for k in ("rules", "subjects", "roleRef", "aggregationRule")}
        out.append(json.loads(unsuffixed(json.dumps(content), side)))
    return out


def same_state(kubectl, *targets: str) -> list:
    theirs, ours = (state(kubectl, side, *targets) for side in SIDES)
    assert ours == theirs
    return theirs


def test_create_then_unchanged(kubectl, remote, tmp_path):
    docs = (role("reader", PODS_READ, CONFIGMAPS_NAMED),
            role("cluster-reader", PODS_READ, HEALTH, namespace=""),
            binding("read", "reader", JANE, BOT),
            binding("cluster-read", "cluster-reader", DEVS, namespace="", role_kind="ClusterRole"),
            CONFIGMAP)
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs)
    assert code == 0
    assert out.splitlines() == ["role.rbac.authorization.k8s.io/reader-@ reconciled",
                                "clusterrole.rbac.authorization.k8s.io/cluster-reader-@ reconciled",
                                "rolebinding.rbac.authorization.k8s.io/read-@ reconciled",
                                "clusterrolebinding.rbac.authorization.k8s.io/cluster-read-@ reconciled"]
    assert err.count("\treconciliation required create\n") == 4
    assert "\tmissing rules added:\n\t\t{Verbs:[get list] APIGroups:[] Resources:[pods] ResourceNames:[] " \
           "NonResourceURLs:[]}\n" in err
    assert "\t\t{Kind:ServiceAccount APIGroup: Name:bot Namespace:rec-@}\n" in err
    found = same_state(kubectl, "role/reader", "clusterrole/cluster-reader", "rolebinding/read",
                       "clusterrolebinding/cluster-read")
    assert found[2]["subjects"][1]["name"] == "bot"
    # a second run changes nothing and says so with no detail lines
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs)
    assert (code, err) == (0, "")
    assert out.count(" reconciled\n") == 4
    for side in SIDES:  # the ConfigMap was skipped
        assert kubectl.run("get", "configmap", f"ignored-{side}").returncode == 1


def test_missing_rules_added_then_extra_removed(kubectl, remote, tmp_path):
    reconcile_both(kubectl, remote, tmp_path, (role("grow", PODS_READ),))
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (role("grow", PODS_READ, DEPLOY_ALL),))
    assert code == 0 and "\treconciliation required update\n\tmissing rules added:\n" in err
    assert err.count("APIGroups:[apps]") == 4
    same_state(kubectl, "role/grow")
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (role("grow", DEPLOY_ALL),),
                                    "--remove-extra-permissions")
    assert "\textra rules removed:\n" in err
    assert same_state(kubectl, "role/grow")[0]["rules"] == [
        {"apiGroups": ["apps"], "resources": ["deployments", "replicasets"], "verbs": ["get", "watch"]}]
    # without the flag, extra rules stay and nothing is printed about them
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (role("grow", "- apiGroups: [apps]\n  resources: "
                                                                     "[deployments]\n  verbs: [get]\n"),))
    assert (code, err) == (0, "")


def test_subjects_added_and_removed(kubectl, remote, tmp_path):
    reconcile_both(kubectl, remote, tmp_path, (binding("team", "grow", JANE),))
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (binding("team", "grow", JANE, DEVS, BOT),))
    assert "\tmissing subjects added:\n" in err and "Name:devs" in err
    same_state(kubectl, "rolebinding/team")
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (binding("team", "grow", DEVS),),
                                    "--remove-extra-subjects")
    assert "\textra subjects removed:\n" in err and "Name:jane" in err
    assert [s["name"] for s in same_state(kubectl, "rolebinding/team")[0]["subjects"]] == ["devs"]


def test_changed_role_ref_recreates_the_binding(kubectl, remote, tmp_path):
    reconcile_both(kubectl, remote, tmp_path, (binding("swap", "first", JANE, namespace="", role_kind="ClusterRole"),))
    code, out, err = reconcile_both(kubectl, remote, tmp_path,
                                    (binding("swap", "second", DEVS, namespace="", role_kind="ClusterRole"),))
    assert code == 0 and err == "\treconciliation required recreate\n"
    found = same_state(kubectl, "clusterrolebinding/swap")[0]
    assert found["roleRef"]["name"] == "second-@" and [s["name"] for s in found["subjects"]] == ["devs"]


def test_dry_run_changes_nothing(kubectl, remote, tmp_path):
    docs = (role("dry", PODS_READ, namespace=""),)
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs, "--dry-run=client")
    assert out == "clusterrole.rbac.authorization.k8s.io/dry-@ reconciled (dry run)\n"
    assert err.startswith("\treconciliation required create\n")
    assert same_state(kubectl, "clusterrole/dry") == [("absent", "clusterrole/dry")]
    # kubectl refuses a server-side dry run of reconcile
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs, "--dry-run=server")
    assert (code, out, err) == (1, "", "error: --dry-run=server for command reconcile is not supported yet\n")


def test_output_name_and_protected_objects(kubectl, remote, tmp_path):
    keep = "\n  annotations:\n    rbac.authorization.kubernetes.io/autoupdate: \"false\""
    reconcile_both(kubectl, remote, tmp_path, (role("kept", PODS_READ, namespace="", extra=keep),))
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (role("kept", DEPLOY_ALL, namespace=""),), "-o", "name")
    assert out == "clusterrole.rbac.authorization.k8s.io/kept-@\n"
    assert err.startswith("\treconciliation required update, but object opted out "
                          "(rbac.authorization.kubernetes.io/autoupdate: false)\n")
    assert same_state(kubectl, "clusterrole/kept")[0]["rules"][0]["resources"] == ["pods"]


def test_usage_errors(kubectl, remote):
    for args in ((), ("role", "x")):
        theirs, ours = kubectl.run("auth", "reconcile", *args), remote.run("auth", "reconcile", *args)
        assert ours.returncode == theirs.returncode == 1, args
        assert ours.stderr.replace("kubelite", "kubectl") == theirs.stderr, args


AGGREGATED = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: agg-@\n"
              "  labels: {team: a}\naggregationRule:\n  clusterRoleSelectors:\n{selectors}rules: []\n")
SELECTOR = "  - matchLabels: {{agg-@: '{}'}}\n"


def aggregated(*values: str) -> str:
    return AGGREGATED.replace("{selectors}", "".join(SELECTOR.format(v) for v in values))


def test_aggregation_selectors_and_labels(kubectl, remote, tmp_path):
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (aggregated("x"),))
    assert (code, err) == (0, "\treconciliation required create\n")
    # a new selector and a new label: an update with no rule lines (selectors are not listed)
    changed = aggregated("x", "y").replace("{team: a}", "{team: a, tier: b}")
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (changed,))
    assert (code, err) == (0, "\treconciliation required update\n")
    found = same_state(kubectl, "clusterrole/agg")[0]
    assert len(found["aggregationRule"]["clusterRoleSelectors"]) == 2
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (aggregated("y"),), "--remove-extra-permissions")
    assert (code, err) == (0, "\treconciliation required update\n")
    assert same_state(kubectl, "clusterrole/agg")[0]["aggregationRule"]["clusterRoleSelectors"] == [
        {"matchLabels": {"agg-@": "y"}}]


def test_namespace_left_out_and_json_output(kubectl, remote, tmp_path):
    """kubectl does not give a Role without a namespace the -n one: creating it fails."""
    docs = (role("plain", PODS_READ, namespace="").replace("kind: ClusterRole", "kind: Role"),)
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs, "-n", "default")
    assert (code, out, err) == (1, "", "error: resource name may not be empty\n")
    # -o json prints the object as written
    answers = []
    for side, cli in zip(SIDES, (kubectl, remote)):
        path = tmp_path / f"plain-{side}.yaml"
        path.write_text(manifest(side, role("plain", PODS_READ)))
        done = cli.run("auth", "reconcile", "-f", str(path), "-o", "json")
        assert done.returncode == 0, done.stderr
        obj = json.loads(done.stdout)
        assert obj["metadata"]["namespace"] == f"rec-{side}"
        for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
            obj["metadata"].pop(key, None)
        answers.append((unsuffixed(json.dumps(obj, sort_keys=True), side), unsuffixed(done.stderr, side)))
    assert answers[1] == answers[0]


def test_subject_without_api_group_is_compared_as_written(kubectl, remote, tmp_path):
    """The file's subjects are compared field by field with the stored (defaulted) ones."""
    docs = (binding("bare", "grow", "- kind: User\n  name: sam\n"),)
    reconcile_both(kubectl, remote, tmp_path, docs)
    code, out, err = reconcile_both(kubectl, remote, tmp_path, docs)
    # the server stored apiGroup rbac.authorization.k8s.io: kubectl sees sam as missing and adds sam again
    assert (code, err) == (0, "\treconciliation required update\n\tmissing subjects added:\n"
                              "\t\t{Kind:User APIGroup: Name:sam Namespace:}\n")
    assert [s["name"] for s in same_state(kubectl, "rolebinding/bare")[0]["subjects"]] == ["sam", "sam"]


@pytest.mark.parametrize("rules", ["5", "\n- verbs: get", "\n- 7"])
def test_badly_typed_rules_are_refused_before_any_request(kubectl, remote, tmp_path, rules):
    doc = f"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: bad-@\nrules: {rules}\n"
    code, out, err = reconcile_both(kubectl, remote, tmp_path, (doc,))
    assert code == 1 and err.startswith('error: unable to decode "') and err.count("\n") == 1
