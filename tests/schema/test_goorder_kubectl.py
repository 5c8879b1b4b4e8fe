"""Struct order of typed objects against kubectl 1.32, which prints built-in kinds from Go structs.

- `kubectl create ... --dry-run=client -o json` output, its keys reversed at every depth, must come
  back byte for byte from kubelite's typed JSON printer;
- `kubelite set ... --local -f F -o json` must print what `kubectl set ... --local` prints;
- `run --overrides`, and objects the server answered (`--dry-run=server`), against `kubelite serve`:
  kubectl decodes them into structs before printing, kubelite must print the same bytes (values
  only a live server makes aside).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parents[1]
sys.path.insert(0, str(TESTS / "imperative"))
from imperative_support import (  # noqa: E402
    isolated_home, kubectl_many, kubelite, needs_kubectl, normalize, run_kubectl, served,  # noqa: F401
    served_env)  # noqa: F401 (isolated_home, served, served_env: fixtures)

from kubelite.imperative.jsonorder import to_json_in_order  # noqa: E402

pytestmark = [pytest.mark.kubectl, needs_kubectl]

DRY = ["--dry-run=client", "-o", "json"]
CREATE = [
    ["create", "deployment", "web", "--image=nginx", "--image=redis:7", "--replicas=3", "--port=80"],
    ["create", "deployment", "web", "--image=busybox", "--", "sleep", "10"],
    ["create", "service", "clusterip", "s", "--tcp=80:8080", "--tcp=443"],
    ["create", "service", "clusterip", "s", "--clusterip=None"],
    ["create", "service", "nodeport", "s", "--tcp=80", "--node-port=30080"],
    ["create", "service", "loadbalancer", "s", "--tcp=80"],
    ["create", "service", "externalname", "s", "--external-name=example.com"],
    ["create", "configmap", "c", "--from-literal=b=2", "--from-literal=a=1"],
    ["create", "secret", "generic", "s", "--from-literal=z=1", "--from-literal=a=2", "--type=Opaque"],
    ["create", "secret", "docker-registry", "r", "--docker-server=reg", "--docker-username=u",
     "--docker-password=p", "--docker-email=e@x"],
    ["create", "namespace", "ns"],
    ["create", "serviceaccount", "sa"],
    ["create", "job", "j", "--image=busybox", "--", "date"],
    ["create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *", "--restart=OnFailure"],
    ["create", "clusterrole", "cr", "--verb=get", "--non-resource-url=/logs/*"],
    ["create", "clusterrole", "agg", "--aggregation-rule=rbac.example.com/aggregate-to-x=true"],
    ["create", "rolebinding", "rb", "--role=r", "--user=u", "--group=g", "--serviceaccount=ns:sa"],
    ["create", "clusterrolebinding", "crb", "--clusterrole=view", "--user=u"],
    ["create", "quota", "q", "--hard=pods=10,cpu=2,memory=1Gi", "--scopes=BestEffort"],
    ["create", "poddisruptionbudget", "pdb", "--selector=app=a", "--min-available=1"],
    ["create", "poddisruptionbudget", "pdb", "--selector=app=a", "--max-unavailable=50%"],
    ["create", "priorityclass", "pc", "--value=100", "--description=d", "--global-default"],
    ["create", "ingress", "in", "--rule=foo.com/bar*=svc:8080,tls=secret", "--class=nginx",
     "--default-backend=def:80", "--annotation=b=2", "--annotation=a=1"],
]


def _reversed(value):
    if isinstance(value, dict):
        return {k: _reversed(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def _with_dry_run(argv: list[str]) -> list[str]:
    if "--" in argv:
        at = argv.index("--")
        return argv[:at] + DRY + argv[at:]
    return argv + DRY


@pytest.fixture(scope="module")
def created():
    argvs = [_with_dry_run(a) for a in CREATE]
    results = kubectl_many(argvs, env_extra={"KUBECONFIG": "/dev/null"})
    for argv, (rc, _, err) in zip(argvs, results):
        assert rc == 0, (argv, err)
    return [out for _, out, _ in results]


def test_kubectl_create_output_comes_back_from_reversed_keys(created):
    mismatches = [(argv, out) for argv, out in zip(CREATE, created)
                  if to_json_in_order(_reversed(json.loads(out))) != out]
    assert not mismatches, mismatches[:2]


def test_create_json_matches_kubectl(created, isolated_home):
    mismatches = [argv for argv, out in zip(CREATE, created) if kubelite(_with_dry_run(argv)) != (0, out, "")]
    assert not mismatches, mismatches[:3]


SET_SOURCES = {
    "svc": ["create", "service", "nodeport", "web", "--tcp=80:8080", "-o", "yaml", "--dry-run=client"],
    "deploy": ["create", "deployment", "web", "--image=nginx", "--image=redis:7", "-o", "yaml", "--dry-run=client"],
    "job": ["create", "job", "j", "--image=busybox", "-o", "yaml", "--dry-run=client"],
    "crb": ["create", "clusterrolebinding", "crb", "--clusterrole=view", "-o", "yaml", "--dry-run=client"],
}
SET_CASES = [
    ("svc", ["selector", "tier=web,env=qa"]),
    ("deploy", ["image", "nginx=nginx:1.27"]),
    ("deploy", ["resources", "--limits=memory=512Mi,cpu=200m", "--requests=cpu=0.1"]),
    ("deploy", ["env", "B=2", "A=1"]),
    ("deploy", ["serviceaccount", "builder"]),
    ("job", ["image", "j=alpine"]),
    ("job", ["env", "X=1"]),
    ("crb", ["subject", "--group=devs", "--user=ann"]),
]


def test_set_local_json_matches_kubectl(tmp_path, isolated_home):
    files = {}
    sources = kubectl_many(list(SET_SOURCES.values()), env_extra={"KUBECONFIG": "/dev/null"})
    for key, (rc, out, err) in zip(SET_SOURCES, sources):
        assert rc == 0, err
        files[key] = tmp_path / f"{key}.yaml"
        files[key].write_text(out)
    argvs = [["set", change[0], "--local", "-f", str(files[key]), *change[1:], "-o", "json"]
             for key, change in SET_CASES]
    expected = kubectl_many(argvs, env_extra={"KUBECONFIG": "/dev/null"})
    assert all(rc == 0 and out.startswith('{\n    "kind": ') for rc, out, _ in expected)
    mismatches = [(a, e[1], kubelite(a)[1]) for a, e in zip(argvs, expected) if kubelite(a) != e]
    assert not mismatches, mismatches[:1]


# ---- against `kubelite serve`: kubectl needs a server to map `run` and to send --dry-run=server ----

OVERRIDES = '{"metadata":{"labels":{"z":"1","a":"2"}},"spec":{"serviceAccountName":"x","containers":' \
            '[{"name":"p","image":"nginx","env":[{"value":"1","name":"A"}]}]}}'
SERVED_CASES = [
    ["run", "p", "--image=nginx", "--dry-run=client", "-o", "json", f"--overrides={OVERRIDES}"],
    ["run", "p", "--image=nginx", "--dry-run=client", "-o", "json", '--overrides={"spec":{"restartPolicy":"Never"}}'],
    ["run", "p1", "--image=nginx", "--port=80", "--dry-run=server", "-o", "json"],
    ["create", "deployment", "d1", "--image=nginx", "--dry-run=server", "-o", "json"],
    ["create", "configmap", "c1", "--from-literal=b=1", "--from-literal=a=2", "--dry-run=server", "-o", "json"],
    ["create", "service", "clusterip", "s1", "--tcp=80", "--dry-run=server", "-o", "json"],
    ["create", "cronjob", "cj", "--image=busybox", "--schedule=@hourly", "--dry-run=server", "-o", "json"],
]
# values only a live server makes: uids, times, allocated cluster IPs, service-account token volumes
_VOLATILE = [re.compile(p) for p in (r'"uid": "[^"]*"', r'"creationTimestamp": "[^"]*"', r'"time": "[^"]*"',
                                     r'"\d+\.\d+\.\d+\.\d+"', r"kube-api-access-\w{5}")]


def _stable(text: str) -> str:
    for pattern in _VOLATILE:
        text = pattern.sub("<server-made>", text)
    return text


def test_typed_objects_from_server_and_overrides_match_kubectl(served_env):
    mismatches = []
    for argv in SERVED_CASES:
        p = run_kubectl(argv, served_env)
        assert p.returncode == 0, normalize(p.stderr)
        rc, out, err = kubelite(argv)
        if (rc, _stable(out)) != (0, _stable(p.stdout)):
            mismatches.append((argv, p.stdout, out, err))
    assert not mismatches, mismatches[:1]
