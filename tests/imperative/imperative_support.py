import io
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr, redirect_stdout

import pytest

sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
from test_serve_support import served  # noqa: E402,F401 (a fixture: `kubelite serve` for the module)

KUBECTL = "/usr/bin/kubectl"
_KLOG = re.compile(r"^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.M)


def have_kubectl() -> bool:
    return os.path.exists(KUBECTL)


needs_kubectl = pytest.mark.skipif(not have_kubectl(), reason="needs /usr/bin/kubectl")


def normalize(text: str) -> str:
    """klog lines carry a time and a pid; a usage hint names the program (kubelite where kubectl)."""
    return _KLOG.sub("E0000 00:00:00.000000 PID ", text).replace("See 'kubectl ", "See 'kubelite ")


def kubectl_many(argvs, stdin=None, env_extra=None):
    """Run kubectl for each argv, two at a time: [(rc, stdout, stderr)]."""
    env = {**os.environ, "KUBECONFIG": "/dev/null", **(env_extra or {})}

    def one(argv):
        p = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, input=stdin, timeout=60)
        return p.returncode, p.stdout, normalize(p.stderr)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, argvs))


def kubelite(argv, stdin: str | None = None, monkeypatch=None):
    """Run the kubelite CLI in-process: (rc, stdout, stderr)."""
    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(list(argv))
    finally:
        sys.stdin = old_stdin
    return rc, out.getvalue(), normalize(err.getvalue())


@pytest.fixture
def isolated_home(tmp_path, monkeypatch):
    """No kubeconfig at all: kubectl's view with KUBECONFIG=/dev/null."""
    monkeypatch.setenv("KUBECONFIG", "/dev/null")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kubelite"))
    return tmp_path


@pytest.fixture
def served_env(served, monkeypatch, tmp_path) -> dict:
    """In-process kubelite pointed at `served` from a fresh home; the environment to run kubectl with."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kl"))
    monkeypatch.setenv("KUBECONFIG", str(served.kubeconfig))
    return {**os.environ, "KUBECONFIG": str(served.kubeconfig), "HOME": str(tmp_path)}


def run_kubectl(argv, env: dict, cache_dir=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """kubectl with `env` (a served_env), its discovery cache in `cache_dir` when given."""
    cache = ["--cache-dir", str(cache_dir)] if cache_dir is not None else []
    return subprocess.run([KUBECTL, *cache, *argv], capture_output=True, text=True, env=env, input=stdin,
                          timeout=60)
