"""Shell completion against kubectl's: `kubectl __completeNoDesc ARGS WORD` and kubelite's, both
pointed at a `kubelite serve` holding a deployment and a config map, answer the same candidates
and the same directive; the scripts of `completion SHELL` hand the command line to kubelite."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from cli_support import KUBECTL

pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")]

CASES = [
    ["g"], ["get", ""], ["get", "p"], ["get", "pods", ""], ["get", "deployment/"], ["get", "pods,deploy", ""],
    ["get", "deploy", "w"], ["describe", ""], ["delete", "cm", ""], ["edit", "configmaps", ""], ["label", "d"],
    ["annotate", "deploy", ""], ["logs", ""], ["logs", "w"], ["exec", ""], ["port-forward", "deployments/"],
    ["-n", ""], ["--namespace="], ["--namespace=kube"], ["get", "-n", ""], ["get", "-o", ""],
    ["get", "--output=j"], ["create", "deployment", "x", "-o", ""], ["--context", ""], ["config", "use-context", ""],
    ["rollout", "status", ""], ["rollout", "history", "deploy", ""], ["scale", ""], ["scale", "deploy", ""],
    ["autoscale", ""], ["expose", ""], ["cordon", ""], ["drain", "n"], ["taint", ""], ["taint", "node", ""],
    ["top", "pod", ""], ["top", "node", ""], ["set", "image", ""], ["set", "image", "deployments", ""],
    ["create", ""], ["create", "secret", ""], ["create", "service", "n"], ["set", ""], ["rollout", ""],
    ["config", ""], ["top", ""], ["apply", ""], ["explain", ""], ["version", ""], ["wait", ""],
    ["get", "pods", "-n", "default", ""], ["-n", "default", "get", "cm", ""], ["api-resources", ""],
    # flag names: the global ones, then the command's own; required ones alone while missing
    ["-"], ["--"], ["get", "-"], ["get", "--o"], ["get", "-o", "yaml", "--o"], ["set", "--"], ["set", "image", "-"],
    ["create", "deployment", "-"], ["create", "deployment", "x", "--image=a", "-"], ["create", "deployment", "x", ""],
    ["scale", "-"], ["config", "--"], ["config", "view", "-"], ["label", "-"], ["cordon", "-"], ["top", "pod", "-"],
    ["rollout", "status", "-"], ["auth", "can-i", "-"], ["logs", "-"], ["delete", "-"], ["run", "-"],
    ["create", "cronjob", "-"], ["create", "secret", "tls", "-"], ["create", "job", "-"], ["create", "role", "-"],
]
# kubectl commands kubelite does not have, and kubelite's own
_NOT_SHARED = {"alpha", "certificate", "proxy", "serve"}


@pytest.fixture(scope="module")
def cluster(served, tmp_path_factory):
    """The served cluster with objects to complete; the environment both programs run in."""
    home = tmp_path_factory.mktemp("completion")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "KUBECONFIG": str(served.kubeconfig),
           "KUBELITE_HOME": str(home / "kl")}
    for argv in (["create", "deployment", "web", "--image=nginx"], ["create", "configmap", "settings"]):
        done = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
    return env


def _complete(program: list[str], words: list[str], env: dict, hidden: str = "__completeNoDesc"):
    done = subprocess.run([*program, hidden, *words], capture_output=True, text=True, env=env, timeout=60)
    lines = done.stdout.splitlines()
    return done.returncode, lines, done.stderr.splitlines()[-1:]


def test_completion_matches_kubectl(cluster):
    mismatches = []
    for words in CASES:
        want = _complete([KUBECTL], words, cluster)
        got = _complete([sys.executable, "-m", "kubelite"], words, cluster)
        if got != want:
            mismatches.append((words, want, got))
    assert not mismatches, "\n".join(map(str, mismatches))


def test_root_commands_and_descriptions(cluster):
    """Every command kubectl offers at the root that kubelite has, each with a description."""
    _, want, _ = _complete([KUBECTL], [""], cluster, "__complete")
    _, got, _ = _complete([sys.executable, "-m", "kubelite"], [""], cluster, "__complete")

    def names(lines):
        return [line.split("\t")[0] for line in lines if line.split("\t")[0] not in _NOT_SHARED]

    assert names(got) == names(want)
    assert got[-1] == want[-1] == ":4"
    assert all("\t" in line for line in got[:-1] if line.split("\t")[0] not in _NOT_SHARED)


@pytest.fixture(scope="module")
def on_path(tmp_path_factory):
    """A directory with a `kubelite` executable, as a user's PATH has it."""
    bin_dir = tmp_path_factory.mktemp("bin")
    wrapper = bin_dir / "kubelite"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kubelite "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


def _script(shell: str, env: dict) -> str:
    done = subprocess.run([sys.executable, "-m", "kubelite", "completion", shell], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("line, cword", [(["kubelite", "get", "deploy", ""], 3), (["kubelite", "-n", "kube"], 2),
                                         (["kubelite", "rollout", "st"], 2), (["kubelite", "create", "secret", ""], 3)])
def test_bash_script_offers_what_kubectl_offers(cluster, on_path, tmp_path, line, cword):
    env = {**cluster, "PATH": f"{on_path}{os.pathsep}{cluster['PATH']}"}
    (tmp_path / "kubelite.bash").write_text(_script("bash", env))
    words = " ".join(f"'{w}'" for w in line)
    program = f"source {tmp_path / 'kubelite.bash'}; COMP_WORDS=({words}); COMP_CWORD={cword}; " \
              '_kubelite_complete; printf "%s\\n" "${COMPREPLY[@]}"'
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, env=env, timeout=120)
    _, want, _ = _complete([KUBECTL], line[1:], cluster)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == want[:-1]


@pytest.mark.parametrize("shell, check", [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "-n"])])
def test_scripts_are_valid_for_their_shell(shell, check, tmp_path):
    if not shutil.which(check[0]):
        pytest.skip(f"{check[0]} not installed")
    path = tmp_path / f"kubelite.{shell}"
    path.write_text(_script(shell, dict(os.environ)))
    done = subprocess.run([*check, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("argv", [["completion"], ["completion", "foo"], ["completion", "bash", "zsh"],
                                  ["__complete"]])
def test_completion_mistakes_as_kubectl(argv, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KUBECONFIG": os.devnull}
    want = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
    got = subprocess.run([sys.executable, "-m", "kubelite", *argv], capture_output=True, text=True, env=env,
                         timeout=60)
    assert (got.returncode, got.stdout, got.stderr) == (
        want.returncode, want.stdout, want.stderr.replace("'kubectl ", "'kubelite "))
