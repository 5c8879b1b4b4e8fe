"""Flags anywhere on the command line, as cobra and pflag parse them: the same argv with its flags
moved before, between and after the command's words, run by /usr/bin/kubectl and by kubelite
(offline: create --dry-run=client, set --local, kustomize, config with a temporary kubeconfig),
compared on exit code, stdout and stderr (kubectl naming itself where kubelite does)."""
from __future__ import annotations

import io
import os
import pathlib
import random
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr, redirect_stdout

import pytest

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")]

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://127.0.0.1:1
  name: one
- cluster:
    server: https://127.0.0.1:2
  name: two
contexts:
- context:
    cluster: one
    namespace: apps
    user: alice
  name: first
- context:
    cluster: two
    user: bob
  name: second
current-context: first
users:
- name: alice
  user:
    token: secret-a
- name: bob
  user:
    token: secret-b
preferences: {}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
"""

KUSTOMIZATION = """\
namePrefix: p-
resources:
- deployment.yaml
"""


def _spellings(short: str | None, long: str, value: str) -> list[list[str]]:
    """The ways pflag accepts one flag with a value."""
    ways = [[f"--{long}", value], [f"--{long}={value}"]]
    if short:
        ways += [[f"-{short}", value], [f"-{short}={value}"], [f"-{short}{value}"]]
    return ways


def _namespace(value: str):
    return _spellings("n", "namespace", value)


def _output(value: str):
    return _spellings("o", "output", value)


# (the command's words in order, groups of flag spellings (one is picked), words after `--`)
def _bases(tmp) -> list[tuple[list[str], list[list[list[str]]], list[str]]]:
    deploy, kubeconfig, kdir = str(tmp / "deployment.yaml"), str(tmp / "config"), str(tmp / "k")
    dry = [["--dry-run=client"]]
    return [
        (["create", "deployment", "web"], [[["--image=nginx"], ["--image", "nginx"]], dry, _output("yaml"),
                                            _namespace("ns1"), [["--replicas", "2"], ["--replicas=3"]],
                                            [["--insecure-skip-tls-verify"]]], []),
        (["create", "deploy", "api"], [[["--image=nginx"]], dry, _output("name"), [["--save-config"]],
                                       [["--port", "80"]]], []),
        (["create", "configmap", "c"], [[["--from-literal=a=b"], ["--from-literal", "a=b"]], dry,
                                        _output("yaml"), _namespace("secret")], []),
        (["create", "secret", "generic", "s"], [[["--from-literal=k=v"]], dry, _output("json"),
                                                _namespace("generic"), [["--type", "Opaque"]]], []),
        (["create", "service", "clusterip", "svc"], [[["--tcp=80:8080"], ["--tcp", "80:8080"]], dry,
                                                     _output("yaml"), [["--cache-dir", str(tmp / "cache")]]], []),
        (["create", "job", "j"], [[["--image=busybox"]], dry, _output("yaml"), _namespace("ns2")],
         ["--", "echo", "hi"]),
        (["set", "image", "nginx=nginx:1.27"], [[["--local"]], [["-f", deploy], ["--filename", deploy],
                                                               [f"--filename={deploy}"]], _output("yaml"),
                                                [["--allow-missing-template-keys"]]], []),
        (["set", "env", "A=1"], [[["--local"]], [["-f", deploy]], _output("name"), [["-c", "nginx"]],
                                 [["--overwrite"], ["--overwrite=false"]]], []),
        (["label", "app=x"], [[["--local"]], [["-f", deploy]], _output("yaml"), [["--overwrite"]]], []),
        (["annotate", "note=y"], [[["--local"]], [["-f", deploy], ["--filename", deploy]], _output("json")], []),
        (["patch"], [[["--local"]], [["-f", deploy]], [["-p", '{"spec":{"replicas":4}}'],
                                                          ['--patch={"spec":{"replicas":4}}']], _output("yaml"),
                     [["--type", "merge"], ["--type=strategic"]]], []),
        (["set", "selector", "app=web"], [[["--local"]], [["-f", deploy]], _output("yaml")], []),
        (["set", "serviceaccount", "builder"], [[["--local"]], [["-f", deploy]], _output("yaml")], []),
        (["set", "resources"], [[["--local"]], [["-f", deploy]], [["--limits=cpu=200m"], ["--limits", "cpu=1"]],
                                _output("yaml"), [["-c", "nginx"], ["--containers=nginx"]]], []),
        (["kustomize", kdir], [[["--load-restrictor", "LoadRestrictionsRootOnly"]], [["--enable-alpha-plugins"]],
                               _namespace("x")], []),
        (["config", "view"], [[["--kubeconfig", kubeconfig], [f"--kubeconfig={kubeconfig}"]], [["--minify"]],
                              _output("yaml")], []),
        (["config", "get-contexts"], [[["--kubeconfig", kubeconfig]], [["--no-headers"]], _output("name")], []),
        (["config", "current-context"], [[["--kubeconfig", kubeconfig]], [["-v", "0"], ["--v=0"]]], []),
    ]


# how many of a base's first flag groups every case keeps
_ESSENTIAL = {"create": 2, "set": 2, "kustomize": 0, "config": 1, "label": 2, "annotate": 2, "patch": 3}


def _place(rng: random.Random, words: list[str], groups: list[list[str]], tail: list[str]) -> list[str]:
    """The flag groups spread at random over the gaps between the words (before the first one too)."""
    slots: list[list[str]] = [[] for _ in range(len(words) + 1)]
    for group in groups:
        slots[rng.randrange(len(slots))].extend(group)
    argv = list(slots[0])
    for word, after in zip(words, slots[1:]):
        argv += [word, *after]
    return argv + tail


def generated_cases(tmp, seed: int = 18, per_base: int = 14) -> list[list[str]]:
    rng = random.Random(seed)
    cases = []
    for words, groups, tail in _bases(tmp):
        for i in range(per_base):
            # the first groups make the command valid offline (what to create, --dry-run, the file ...)
            picked = [rng.choice(ways) for n, ways in enumerate(groups)
                      if n < _ESSENTIAL[words[0]] or i == 0 or rng.random() < 0.7]
            rng.shuffle(picked)
            if i % 5 == 4:  # an unknown flag somewhere: which command reports it shows the path found
                picked.append(["--bogus"])
            cases.append(_place(rng, words, picked, tail))
    return cases


# Mistakes on the command line, and where they are reported.
ERRORS = [
    "foo", "fo", "crate", "zzzzzz", "-n x foo", "--bogus get", "-x get", "create -n", "get -n",
    "set foo", "set foo bar", "set --local image deploy x=y", "create secret foo", "create secret foo bar",
    "create secret --bogus", "create foo", "create foo bar", "create", "rollout foo", "rollout -n", "config foo",
    "auth foo", "top foo", "set -n x --bogus", "create --bogus deployment web --image=x",
    "create deployment --bogus web", "create --edit deployment x --image=a --dry-run=client",
    "--namespace", "create -- deployment", "apply foo", "apply -n", "cluster-info -n",
    "set image -n", "create service foo", "set --bogus=1 image",
    # after `--` every word is an argument
    "label --local -f deployment.yaml -- a=b -o name", "label --local -f deployment.yaml -o name -- a=b",
    "set env --local -f deployment.yaml -o name -- A=1",
]

# Help requests and groups run without a subcommand: kubelite's help has its own wording, so only
# the exit code and which of stdout and stderr carry text are compared.
HELP = [
    "", "-h", "--help", "-n x", "--", "-- foo", "-- get", "help", "help create", "help create deployment", "help foo",
    "create -h deployment", "create deployment -h", "-h get", "set", "set -h", "set -n x", "rollout", "config",
    "auth", "top", "create secret", "create service", "create secret -h x", "set image -h", "apply -h",
    "config --kubeconfig /dev/null -h view",
]


def _files(tmp):
    (tmp / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp / "config").write_text(KUBECONFIG)
    (tmp / "k").mkdir()
    (tmp / "k" / "kustomization.yaml").write_text(KUSTOMIZATION)
    (tmp / "k" / "deployment.yaml").write_text(DEPLOYMENT)
    return tmp


_KLOG = re.compile(r"^([EWI])\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ ", re.M)


def _normal_kubectl(text: str) -> str:
    """kubectl's text as kubelite words it: kubelite names itself; klog headers without time and pid."""
    return _KLOG.sub(r"\g<1>0000 ", text).replace("kubectl", "kubelite")


def kubectl_all(argvs: list[list[str]], env: dict) -> list[tuple[int, str, str]]:
    def one(argv):
        p = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, _normal_kubectl(p.stdout), _normal_kubectl(p.stderr)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, argvs))


def kubelite(argv: list[str]) -> tuple[int, str, str]:
    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as exit_:
            rc = int(exit_.code or 0)
    return rc, out.getvalue(), _KLOG.sub(r"\g<1>0000 ", err.getvalue())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("cmdline"))


@pytest.fixture
def offline(workdir, monkeypatch):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir), "KUBECONFIG": "/dev/null"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("KUBELITE_HOME", str(workdir / "kubelite"))
    monkeypatch.chdir(workdir)
    return env


def _mismatches(cases, env, compare) -> list:
    wanted = kubectl_all(cases, env)
    found = []
    for argv, want in zip(cases, wanted):
        got = kubelite(argv)
        if compare(got) != compare(want):
            found.append((argv, want, got))
    return found


def test_generated_flag_placements_match_kubectl(workdir, offline):
    cases = generated_cases(workdir)
    assert len(cases) > 150
    bad = _mismatches(cases, offline, lambda r: r)
    assert not bad, f"{len(bad)}/{len(cases)} differ: " + "\n".join(f"{b[0]}: {b[1:]}" for b in bad)


def test_generated_cases_mostly_succeed(workdir, offline):
    """The generator is not only making errors: most placements are valid for kubectl too."""
    cases = generated_cases(workdir)[:60]
    ok = [rc for rc, _, _ in kubectl_all(cases, offline) if rc == 0]
    assert len(ok) > len(cases) // 2


@pytest.mark.parametrize("case", ERRORS)
def test_command_line_mistakes_as_kubectl(case, offline):
    bad = _mismatches([case.split()], offline, lambda r: r)
    assert not bad, bad


@pytest.mark.parametrize("case", HELP)
def test_help_goes_where_kubectls_goes(case, offline):
    bad = _mismatches([case.split()], offline, lambda r: (r[0], bool(r[1]), bool(r[2])))
    assert not bad, bad


# -- plugins -------------------------------------------------------------------------------------------

PLUGIN = '#!/bin/sh\necho "$(basename "$0") args: $*"\necho "to stderr" >&2\nexit {code}\n'
PLUGIN_CASES = [
    "plugin list", "plugin list --name-only", "foo a -n b", "foo", "foo-x", "foo x-y z", "-n x foo",
    "create bar -x", "create bar-baz", "create -n x bar", "failing", "nothere", "plugin list extra",
]


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory):
    """Two PATH directories of script plugins (one shadowing the other, one not executable, one named
    like a command) with a missing directory between them."""
    tmp = tmp_path_factory.mktemp("plugins")
    first, second = tmp / "p1", tmp / "p2"
    first.mkdir()
    second.mkdir()
    for directory, name, code, mode in [(first, "kubectl-foo", 0, 0o755), (first, "kubectl-foo-x_y", 0, 0o755),
                                        (first, "kubectl-create-bar", 0, 0o755), (first, "kubectl-get", 0, 0o755),
                                        (first, "kubectl-failing", 3, 0o755), (first, "kubectl-noexec", 0, 0o644),
                                        (second, "kubectl-foo", 0, 0o755)]:
        (directory / name).write_text(PLUGIN.format(code=code))
        (directory / name).chmod(mode)
    return os.pathsep.join([str(first), str(tmp / "missing"), str(second), "/usr/bin", "/bin"])


def _plugin_words(text: str) -> str:
    """kubectl's plugin messages as kubelite words them (file names keep their kubectl- prefix)."""
    for theirs, ours in (('"kubectl ', '"kubelite '), ("a kubectl plugin", "a kubelite plugin"),
                         ("any kubectl plugins", "any kubelite plugins"), ('for "kubectl"', 'for "kubelite"'),
                         ("'kubectl ", "'kubelite ")):
        text = text.replace(theirs, ours)
    return text


@pytest.mark.parametrize("case", PLUGIN_CASES)
def test_plugins_run_and_list_as_kubectls(case, plugin_path, tmp_path):
    import sys

    env = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": "/dev/null",
           "KUBELITE_HOME": str(tmp_path / "kl")}
    want = subprocess.run([KUBECTL, *case.split()], capture_output=True, text=True, env=env, timeout=60)
    got = subprocess.run([sys.executable, "-m", "kubelite", *case.split()], capture_output=True, text=True,
                         env=env, timeout=60)
    assert (got.returncode, got.stdout, got.stderr) == (
        want.returncode, _plugin_words(want.stdout), _plugin_words(want.stderr))


def test_no_plugins_on_path(tmp_path):
    import sys

    env = {"PATH": str(tmp_path / "none"), "HOME": str(tmp_path), "KUBECONFIG": "/dev/null"}
    want = subprocess.run([KUBECTL, "plugin", "list"], capture_output=True, text=True, env=env, timeout=60)
    got = subprocess.run([sys.executable, "-m", "kubelite", "plugin", "list"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert want.returncode == 1
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, _plugin_words(want.stderr))


# -- against kubelite serve ------------------------------------------------------------------------------

def _served_bases(deploy: str) -> list[tuple[list[str], list[list[list[str]]], list[str]]]:
    server_dry = [["--dry-run=server"]]
    return [
        (["create"], [[["-f", deploy], [f"--filename={deploy}"]], server_dry, _output("name"), _namespace("default"),
                      [["--save-config"]]], []),
        (["get", "ns"], [_output("name")], []),
        (["get", "cm", "settings"], [_namespace("default"), _output("name")], []),
        (["get", "deployments"], [_output("name"), [["-l", "app=web"], ["--selector=app=web"]], [["--no-headers"]]],
         []),
        (["rollout", "history", "deployment/web"], [_namespace("default")], []),
        (["label", "cm", "settings", "tier=x"], [server_dry, _namespace("default"), _output("name"),
                                                 [["--overwrite"]]], []),
        (["set", "image", "deployment/web", "nginx=nginx:1.27"], [server_dry, _output("name"),
                                                                  _namespace("default")], []),
        (["scale", "deployment", "web"], [[["--replicas=2"], ["--replicas", "2"]], server_dry, _output("name")], []),
        (["create", "configmap", "other"], [server_dry, [["--from-literal=a=b"]], _output("name"),
                                            _namespace("default")], []),
        (["auth", "can-i", "get", "pods"], [_namespace("default")], []),
        (["api-resources"], [[["--namespaced=true"]], _output("name"), [["--api-group", "apps"]]], []),
    ]


@pytest.fixture(scope="module")
def served_env(served, tmp_path_factory):
    """`kubelite serve` with a deployment and a config map; the environment kubectl and kubelite run in."""
    home = tmp_path_factory.mktemp("served-cmdline")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "KUBECONFIG": str(served.kubeconfig)}
    (home / "deployment.yaml").write_text(DEPLOYMENT.replace("name: web", "name: other"))
    for argv in (["create", "deployment", "web", "--image=nginx"], ["create", "configmap", "settings"]):
        done = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
    return env


def test_generated_flag_placements_against_served(served_env, monkeypatch, tmp_path):
    for key, value in served_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kl"))
    rng = random.Random(32)
    cases = []
    for words, groups, tail in _served_bases(str(pathlib.Path(served_env["HOME"]) / "deployment.yaml")):
        for _ in range(6):
            cases.append(_place(rng, words, [rng.choice(ways) for ways in groups], tail))
    bad = _mismatches(cases, served_env, lambda r: r)
    assert not bad, f"{len(bad)}/{len(cases)} differ: " + "\n".join(f"{b[0]}: {b[1:]}" for b in bad)


def _plugin_section(help_text: str) -> list[str]:
    lines = help_text.split("Subcommands provided by plugins:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [line.split()[0] for line in lines]


@pytest.mark.parametrize("case", [["-h"], ["__completeNoDesc", "f"], ["__completeNoDesc", "foo", ""],
                                  ["__completeNoDesc", "n"], ["__completeNoDesc", "foo", "x-y", ""]])
def test_plugins_in_help_and_completion(case, plugin_path, tmp_path):
    """kubectl lists the plugins that add commands in its help and offers them (and the words of longer
    plugin names) in completion; the descriptions are kubelite's own."""
    import sys

    env = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": "/dev/null",
           "KUBELITE_HOME": str(tmp_path / "kl")}
    want = subprocess.run([KUBECTL, *case], capture_output=True, text=True, env=env, timeout=60)
    got = subprocess.run([sys.executable, "-m", "kubelite", *case], capture_output=True, text=True, env=env,
                         timeout=60)
    assert got.returncode == want.returncode == 0
    if case == ["-h"]:
        assert _plugin_section(got.stdout) == _plugin_section(want.stdout) == ["failing", "foo", "foo", "noexec", "foo"]
    else:
        assert got.stdout == want.stdout
