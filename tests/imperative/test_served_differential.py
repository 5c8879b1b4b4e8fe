"""Generators that need a server even for --dry-run=client (kubectl maps resources first):
`create role|clusterrole --resource` and `run`, real kubectl and kubelite both against `kubelite serve`."""
import pytest

from imperative_support import kubelite, needs_kubectl, normalize, run_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]

CASES = [
    ["create", "role", "r", "--verb=get,list", "--resource=pods,deployments.apps,pods/status", "-o", "json"],
    ["create", "role", "r", "--verb=get", "--verb=get", "--resource=deploy", "--resource-name=a", "-o", "yaml"],
    ["create", "role", "r", "--verb=*", "--resource=*", "-o", "yaml", "-n", "team"],
    ["create", "role", "r", "--verb=get", "--resource=foo", "-o", "yaml"],
    ["create", "role", "r", "--verb=use", "--resource=pods", "-o", "yaml"],
    ["create", "role", "r", "--verb=bind", "--resource=roles.rbac.authorization.k8s.io", "-o", "json"],
    ["create", "role", "r", "--verb=get", "-o", "yaml"],
    ["create", "role", "r", "--verb=frob", "--resource=pods", "-o", "yaml"],
    ["create", "clusterrole", "c", "--verb=get", "--resource=nodes,services", "--non-resource-url=/logs/*",
     "-o", "json"],
    ["run", "p", "--image=nginx", "-o", "json"],
    ["run", "p", "--image=nginx", "--port=80", "--env=A=b", "--labels=x=y,z=w", "--restart=Never",
     "--image-pull-policy=Always", "-o", "json", "--command", "--", "sh", "-c", "date"],
    ["run", "p", "--image=busybox", "-o", "yaml", "-n", "team", "--", "sleep", "10"],
    ["run", "p", "--image=nginx", "--overrides={\"spec\":{\"hostNetwork\":true}}", "-o", "yaml"],
    ["run", "p", "--image=Bad Image", "-o", "yaml"],
    ["run", "p", "--image=nginx", "--env=1BAD=x", "-o", "yaml"],
    ["run", "p", "--image=nginx", "--annotations=a=b", "--privileged", "-o", "json"],
    # words after `--`: the container's args (its command with --command); none before it: no NAME
    ["run", "p", "a1", "--image=busybox", "-o", "yaml", "--", "b1", "--c", "-o", "json"],
    ["run", "--image=busybox", "-o", "yaml", "--", "p"],  # kubectl takes the NAME from after `--` as well
    ["run", "--image=busybox", "-o", "yaml", "--command", "--", "p", "sh", "-c", "true"],
    ["run", "p", "--image=busybox", "-o", "name", "--"],
    ["run", "--image=busybox", "-o", "name", "--"],
    ["run", "p", "--image", "-x", "-o", "yaml", "--command", "--", "sh"],
    ["create", "role", "r", "--verb=get", "--resource=pods", "-o", "name", "--", "x", "y"],
    ["create", "clusterrole", "c", "--verb=get", "--resource=nodes", "-o", "name", "--"],
    ["create", "role", "-o", "name", "--verb=get", "--resource=pods", "--", "r"],
]


def test_server_mapped_generators_match_kubectl(served_env):
    mismatches = []
    for case in CASES:
        argv = case[:case.index("--")] + ["--dry-run=client"] + case[case.index("--"):] if "--" in case \
            else case + ["--dry-run=client"]
        p = run_kubectl(argv, served_env)
        expected = (p.returncode, p.stdout, normalize(p.stderr))
        got = kubelite(argv)
        if got != expected:
            mismatches.append((argv, expected, got))
    for m in mismatches:
        print("MISMATCH", m)
    assert not mismatches, f"{len(mismatches)}/{len(CASES)}"
