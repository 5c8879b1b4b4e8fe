"""Differential: `kubelite wait` and /usr/bin/kubectl wait against the same `kubelite serve` (pods run
on its simulated node, deployments become Available), and waits that end while they run."""
from __future__ import annotations

import subprocess

import pytest

from pod_cli_support import both, prepared

pytestmark = pytest.mark.kubectl

CASES = [
    ("--for=condition=Ready", "pod/web"), ("--for=condition=ready=TRUE", "pod/web", "pod/two"),
    ("--for=condition=Ready", "pods", "--all"), ("--for=condition=Ready", "pods", "-l", "app=dep"),
    ("--for=condition=Available", "deployment/dep"), ("--for=condition=Ready", "pod/web", "--timeout=0"),
    ("--for=condition=Ready=False", "pod/web", "--timeout=0"), ("--for=condition=Nope", "pod/web", "--timeout=1s"),
    ("--for=jsonpath={.status.phase}=Running", "pod/web"), ("--for=jsonpath=.status.podIP", "pod/web", "-o", "name"),
    ("--for=jsonpath={.spec.containers[*].name}", "pod/two", "--timeout=1s"),
    ("--for=jsonpath={.spec}=x", "pod/two", "--timeout=1s"),
    ("--for=jsonpath={.status.phase}=", "pod/web"), ("--for=jsonpath=", "pod/web"),
    ("--for=create", "pod/web"), ("--for=delete", "pod/nope"), ("--for=delete", "pod/web", "--timeout=0"),
    ("--for=delete", "pod/web", "--timeout=1s"), ("--for=condition=Ready", "pod/nope", "--timeout=1s"),
    ("--for=condition=Ready", "pods", "-l", "app=none"), ("--for=bogus", "pod/web"), ("pod/web",),
    ("--for=condition=Ready", "pods"), ("--for=condition=Ready", "pod/web", "-o", "jsonpath={.status.phase}"),
    ("--for=condition=Ready", "pods", "--all", "-A"), ("--for=condition=Ready", "nodes", "--all"),
    ("--for=condition=Ready", "node/node-a", "-o", "jsonpath={.status.nodeInfo.kubeletVersion}"),
]


@pytest.fixture(scope="module")
def ready(served, tmp_path_factory):
    return prepared(served, tmp_path_factory, "wait")


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a))
def test_wait_as_kubectl(ready, remote, kubectl, args):
    ours, theirs = both(remote, kubectl, "wait", *args)
    assert ours == theirs  # kubectl's reflector noise is taken out by both()


def _start(cli, *args):
    return subprocess.Popen(cli.argv0 + list(args) + ["-v=6"] + cli.extra, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=cli.env)


def _asked_about(proc, name: str) -> None:
    """Read the -v=6 request log until the waiting command has asked the server about `name`."""
    for line in proc.stderr:
        if name in line:
            return
    raise AssertionError(f"the wait ended before asking about {name}")


@pytest.mark.parametrize("condition, name, change", [
    ("--for=create", "later", ("run", "later", "--image=nginx")),
    ("--for=delete", "two", ("delete", "pod/two", "--wait=false")),
])
def test_waits_end_when_the_cluster_gets_there(ready, remote, kubectl, condition, name, change):
    procs = [_start(cli, "wait", condition, f"pod/{name}", "--timeout=60s") for cli in (remote, kubectl)]
    try:
        for p in procs:
            _asked_about(p, name)
        assert kubectl.run(*change).returncode == 0
        results = [(p.wait(timeout=90), p.stdout.read()) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.communicate()
    assert results[0] == results[1] == (0, f"pod/{name} condition met\n")
