"""`kubelite config` subcommands that write kubeconfig files, against /usr/bin/kubectl.

Each scenario runs the same command sequence in one directory twice, once with kubectl and once
with kubelite (in-process), starting from the same kubeconfig files; every step's exit code,
stdout and stderr must match, and so must the files left behind (names, bytes, modes).
Where kubectl prints Go pointer addresses (`map[a:0xc000123456]`) the addresses are masked, where it
prints a command's help only the presence of the help is compared (the wording is kubelite's own),
and `get-clusters` lists are compared sorted (kubectl prints them in Go's random map order).
"""
from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
from contextlib import redirect_stderr, redirect_stdout

import pytest

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")]

FIRST = """\
kind: Config
apiVersion: v1
current-context: dev
unknown: dropped
clusters:
- name: zeta
  cluster:
    server: https://z:6443
    certificate-authority-data: QUJD
    unknown: dropped
- name: alpha
  cluster:
    server: https://a:6443
    certificate-authority: certs/ca.crt
    insecure-skip-tls-verify: false
    extensions:
    - name: zz
      extension: {a: 1}
    - name: aa
      extension: "text"
contexts:
- name: dev
  context: {cluster: alpha, user: admin, namespace: dev}
- name: zeta-ctx
  context: {cluster: zeta}
users:
- name: admin
  user:
    token: abc
    client-certificate: ../outside.crt
    as: someone
- name: plugin
  user:
    exec:
      command: ./bin/get-token
      apiVersion: client.authentication.k8s.io/v1beta1
      env: [{name: A, value: "1"}]
"""

SECOND = """\
apiVersion: v1
kind: Config
current-context: other
clusters:
- name: alpha
  cluster: {server: "https://shadowed"}
- name: onlyb
  cluster: {server: "https://b"}
contexts:
- name: other
  context: {cluster: onlyb, user: buser}
users:
- name: buser
  user: {username: u, password: p}
preferences: {colors: true}
"""

PLAIN = """\
apiVersion: v1
kind: Config
clusters:
- name: alpha
  cluster: {server: "https://a:6443", certificate-authority-data: QUJD}
- name: zeta
  cluster: {server: "https://z:6443"}
contexts:
- name: dev
  context: {cluster: alpha, user: admin, namespace: dev}
- name: zeta-ctx
  context: {cluster: zeta, user: admin}
current-context: dev
users:
- name: admin
  user: {token: abc}
"""

FLATTEN_B = """\
apiVersion: v1
kind: Config
clusters:
- name: b
  cluster: {server: "https://b", certificate-authority: ../certs/ca.crt}
- name: both
  cluster: {server: "https://b", certificate-authority: ../certs/ca.crt, certificate-authority-data: QUJD}
- name: gone
  cluster: {server: "https://b", certificate-authority: missing.crt}
contexts:
- name: b-ctx
  context: {cluster: b, user: buser}
- name: both
  context: {cluster: both}
- name: gone
  context: {cluster: gone}
users:
- name: buser
  user: {client-certificate: ../certs/c.crt, client-key: /nonexistent/c.key}
"""

EVERY_FIELD = """\
apiVersion: v1
kind: Config
preferences: {colors: true}
clusters:
- name: every
  cluster: {server: "https://e:6443", certificate-authority: certs/ca.crt, insecure-skip-tls-verify: true,
            tls-server-name: t, proxy-url: "http://p", disable-compression: true,
            extensions: [{name: b, extension: {x: 1}}, {name: a, extension: "s"}]}
- name: bare
  cluster: {insecure-skip-tls-verify: false, unknown: 1}
contexts:
- name: every
  context: {namespace: dev, user: every, cluster: every, extensions: [{name: e, extension: 1}]}
- name: empty
  context: {}
users:
- name: every
  user:
    username: u
    password: p
    as: x
    as-groups: [g]
    as-uid: uid
    as-user-extra: {k: [v]}
    tokenFile: /tf
    token: abc
    client-key-data: QUJD
    client-certificate: c.crt
    auth-provider: {name: oidc, config: {b: "1", a: "2"}}
    exec: {interactiveMode: Never, apiVersion: v1, command: c, env: [{value: v, name: nn}], args: [a],
           installHint: h, provideClusterInfo: true}
- name: bare-exec
  user: {exec: {command: c}}
- name: bare-provider
  user: {auth-provider: {name: x}}
"""

BOTH = {"a.yaml": FIRST, "b.yaml": SECOND}
PAIR = "a.yaml:b.yaml"

SCENARIOS = {
    "set-cluster": (PAIR, BOTH, [
        "set-cluster new --server=https://n",
        "set-cluster alpha --insecure-skip-tls-verify",
        "set-cluster zeta --certificate-authority=certs/ca.crt",
        "set-cluster zeta --embed-certs --certificate-authority=certs/ca.crt",
        "set-cluster onlyb --server=https://changed",
        "set-cluster x --tls-server-name=t --proxy-url=http://p:3128",
        "set-cluster x --server=https://s",
        "set-cluster x --certificate-authority=../up.crt",
        "set-cluster x --insecure-skip-tls-verify=false",
        "set-cluster",
        "set-cluster one two",
        "set-cluster c --insecure-skip-tls-verify --certificate-authority=certs/ca.crt",
        "set-cluster c --embed-certs",
        "set-cluster c --embed-certs --certificate-authority=missing.crt",
        "set-cluster c --embed-certs=maybe",
        "get-clusters",
    ]),
    "set-credentials": (PAIR, BOTH, [
        "set-credentials t --token=secret",
        "set-credentials t --username=me --password=pw",
        "set-credentials t --token=x --username=me",
        "set-credentials admin --username=other",
        "set-credentials c --client-certificate=certs/c.crt --client-key=certs/c.key",
        "set-credentials e --client-certificate=certs/c.crt --client-key=certs/c.key --embed-certs",
        "set-credentials e --embed-certs",
        "set-credentials plugin --exec-arg=one --exec-arg=two,three --exec-env=A=changed",
        "set-credentials plugin --exec-env=A-",
        "set-credentials plugin --exec-env=B=2",
        "set-credentials plugin --exec-interactive-mode=Never --exec-provide-cluster-info",
        "set-credentials plugin --exec-interactive-mode=Sometimes",
        "set-credentials plugin --exec-command=/usr/bin/other",
        "set-credentials new --exec-command=./tools/token --exec-api-version=client.authentication.k8s.io/v1",
        "set-credentials sso --auth-provider=oidc --auth-provider-arg=client-id=x,client-secret=y",
        "set-credentials sso --auth-provider-arg=client-secret-",
        "set-credentials sso --auth-provider=gcp",
        "set-credentials buser --token=t2",
        "set-credentials",
        "get-users",
    ]),
    "delete-and-rename": (PAIR, BOTH, [
        "delete-cluster zeta",
        "delete-cluster onlyb",
        "delete-cluster nope",
        "delete-cluster",
        "delete-user plugin",
        "delete-user nope",
        "delete-user",
        "delete-context zeta-ctx",
        "rename-context dev development",
        "rename-context other development",
        "rename-context nope x",
        "rename-context development",
        "delete-context development",
        "delete-context other",
        "get-clusters",
        "get-users",
        "current-context",
    ]),
    "set-and-unset": (PAIR, BOTH, [
        "set clusters.alpha.server https://set",
        "set clusters.new.one.server https://dotted",
        "set contexts.dev.namespace changed",
        "set contexts.brand-new.cluster alpha",
        "set users.admin.act-as bob",
        "set users.admin.as bob",
        "set users.admin.client-key-data aGVsbG8=",
        "set users.admin.client-certificate-data not-base64-really --set-raw-bytes",
        "set users.admin.token-data x",
        "set users.admin.client-key-data abc",
        "set users.admin.client-key-data !!",
        "set users.admin.act-as-groups x",
        "set users.admin.exec.command x",
        "set current-context nowhere",
        "set preferences.colors false",
        "set clusters.alpha.insecure-skip-tls-verify maybe",
        "set clusters.alpha.insecure-skip-tls-verify T",
        "set foo bar",
        "set clusters x",
        "set clusters.alpha x",
        "set current-context ''",
        "set current-context",
        "unset contexts.dev.namespace",
        "unset clusters.nope.server",
        "unset clusters.nope",
        "unset users.plugin.exec",
        "unset preferences",
        "unset current-context",
        "unset current-context",
        "set kind Other",
    ]),
    "unset-everything": (PAIR, BOTH, [
        "unset clusters",
        "unset users.buser",
        "unset contexts",
        "view",
    ]),
    "contexts": (PAIR, BOTH, [
        "set-context --current --namespace=ns",
        "set-context fresh --cluster=alpha --user=admin -n x",
        "set-context fresh --namespace=",
        "use-context fresh",
        "use-context nope",
        "set-context",
        "set-context a --current",
    ]),
    "new-files": ("new1.yaml:sub/new2.yaml", {}, [
        "set-cluster c --server=https://c",
        "set-context k --cluster=c",
        "use-context k",
        "set-credentials u --token=t",
        "set preferences.colors true",
    ]),
    "explicit-file": ("a.yaml:b.yaml", BOTH, [
        "set-cluster c --server=https://c --kubeconfig=created.yaml",
        "delete-cluster onlyb --kubeconfig=b.yaml",
        "delete-cluster onlyb --kubeconfig=a.yaml",
        "use-context other --kubeconfig=b.yaml",
        "unset current-context --kubeconfig=a.yaml",
        "view --merge=false",
        "view --merge=maybe",
        "view --kubeconfig=b.yaml --merge=false --raw",
        "view --merge --raw",
    ]),
    "bool-flags": ("a.yaml", {"a.yaml": PLAIN}, [  # pflag's booleans: `--flag`, `--flag=true|false` (Go's spellings)
        "view --minify=true",
        "view --minify=false --raw",
        "view --raw=false",
        "view --raw=T",
        "view --raw=TRUE --minify=1",
        "view --raw=tRuE",
        "view --raw=yes",
        "view --raw true",
        "view --flatten=false",
        "view --flatten=true --minify",
        "view --show-managed-fields=true -o json --minify=true",
        "view --allow-missing-template-keys=false -o jsonpath={.nope}",
        "view --allow-missing-template-keys -o jsonpath={.kind}",
        "view --merge=true --minify",
        "view --merge --minify=False",
        "view --warnings-as-errors=false --minify",
        "view --insecure-skip-tls-verify=true --minify",
        "view --match-server-version --minify",
        "view -o name",
        "view -o wide",
        "view extra words",
        "view -- x",
        "current-context extra",
        "current-context -- x --raw",
        "get-contexts --no-headers=true",
        "get-contexts --no-headers=false",
        "get-contexts --no-headers=F dev",
        "get-contexts --no-headers=yes",
        "get-contexts --no-headers=0 -o name",
        "get-contexts dev nope",
        "get-contexts nope other",
        "get-contexts -o name -- nope",
        "get-clusters --warnings-as-errors=false",
        "set-context --current=false --namespace=y",
        "set-context --current=true --namespace=z",
        "set-context --current true --namespace=z2",
        "set-cluster c --embed-certs=false --server=https://x",
        "set-cluster c --insecure-skip-tls-verify=true",
        "set-cluster c --insecure-skip-tls-verify=false --server=https://y",
        "set-cluster d --insecure-skip-tls-verify --server=https://d",
        "set-credentials u --exec-command=a --exec-provide-cluster-info=false",
        "set-credentials u2 --exec-command=a --exec-provide-cluster-info",
        "set-credentials u3 --client-certificate=certs/c.crt --embed-certs=true",
        "set users.admin.token-data x --set-raw-bytes=true",
        "set users.admin.token y --set-raw-bytes=false",
        "use-context zeta-ctx --match-server-version=false",
        "view",
    ]),
    "flatten": ("a.yaml:sub/b.yaml", {"a.yaml": PLAIN.replace("certificate-authority-data: QUJD",
                                                             "certificate-authority: certs/ca.crt"),
                                      "sub/b.yaml": FLATTEN_B}, [
        "view --flatten",
        "view --flatten=true --minify",
        "view --flatten=false --raw",
        "view --flatten --context=b-ctx --minify",
        "view --flatten --context=both --minify",
        "view --flatten --context=gone --minify",
    ]),
    "view-typed": ("a.yaml:b.yaml:c.yaml", {**BOTH, "c.yaml": EVERY_FIELD}, [  # decoded into kubectl's types
        "view",
        "view -o json",
        "view --raw -o json",
        "view --minify --context=zeta-ctx -o json",
        "view --minify --context=every --raw",
        "view --minify --context=every -o json --raw",
    ]),
    "locked": ("a.yaml", {"a.yaml": FIRST, "a.yaml.lock": ""}, [
        "set-cluster c --server=https://c",
        "get-clusters",
    ]),
    "home-file": (None, {".kube/config": SECOND}, [
        "set-cluster c --server=https://c",
        "delete-context other",
    ]),
}

_ADDRESS = re.compile(r"0x[0-9a-f]+")


def _setup(directory, files):
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o644)
    for name in ("certs/ca.crt", "certs/c.crt", "certs/c.key"):
        (directory / name).parent.mkdir(exist_ok=True)
        (directory / name).write_text(f"-----BEGIN {name}-----\n")


def _snapshot(directory):
    found = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            found[str(path.relative_to(directory))] = (path.read_bytes(), oct(path.stat().st_mode & 0o777))
        elif path.is_file() and path.parent.name == ".kube":
            found[str(path.relative_to(directory))] = (path.read_bytes(), oct(path.stat().st_mode & 0o777))
    return found


def _normalize(step: str, rc: int, out: str, err: str, tool: str):
    out, err = out.replace(tool, "TOOL"), err.replace(tool, "TOOL")
    err = _ADDRESS.sub("0xADDR", err)
    if "Usage:" in out:  # the command's help: kubelite words it its own way
        out = "<help>"
    if step.startswith("get-clusters") or step.startswith("get-users"):
        out = "".join(sorted(out.splitlines(keepends=True)))
    return rc, out, err


def _run_kubectl(directory, kubeconfig, steps):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(directory)}
    if kubeconfig:
        env["KUBECONFIG"] = kubeconfig
    results = []
    for step in steps:
        p = subprocess.run([KUBECTL, "config", *shlex.split(step)], capture_output=True, text=True, env=env,
                           cwd=directory, timeout=30)
        results.append(_normalize(step, p.returncode, p.stdout, p.stderr, "kubectl"))
    return results


def _run_kubelite(directory, kubeconfig, steps, monkeypatch):
    from kubelite.cli.main import main

    monkeypatch.chdir(directory)
    monkeypatch.setenv("HOME", str(directory))
    if kubeconfig:
        monkeypatch.setenv("KUBECONFIG", kubeconfig)
    else:
        monkeypatch.delenv("KUBECONFIG", raising=False)
    results = []
    for step in steps:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                rc = main(["config", *shlex.split(step)])
            except SystemExit as exit_:
                rc = int(exit_.code or 0)
        results.append(_normalize(step, rc, out.getvalue(), err.getvalue(), "kubelite"))
    return results


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_config_writes_files_as_kubectl(scenario, tmp_path, monkeypatch):
    kubeconfig, files, steps = SCENARIOS[scenario]
    work = tmp_path / "work"
    outcomes = {}
    for tool in ("kubectl", "kubelite"):
        if work.exists():
            import shutil

            shutil.rmtree(work)
        work.mkdir()
        _setup(work, files)
        if tool == "kubectl":
            results = _run_kubectl(work, kubeconfig, steps)
        else:
            results = _run_kubelite(work, kubeconfig, steps, monkeypatch)
        outcomes[tool] = (results, _snapshot(work))
    theirs, ours = outcomes["kubectl"], outcomes["kubelite"]
    for step, mine, expected in zip(steps, ours[0], theirs[0]):
        assert mine == expected, step
    assert ours[1].keys() == theirs[1].keys()
    for name in theirs[1]:
        assert ours[1][name] == theirs[1][name], name
