"""Differential: `kubelite logs` and /usr/bin/kubectl logs against the same `kubelite serve`, whose
simulated containers print their `sim.kubelite.io/log` annotation or their echo commands."""
from __future__ import annotations

import pytest

from pod_cli_support import both, prepared

pytestmark = pytest.mark.kubectl

CASES = [
    ("web",), ("web", "--timestamps"), ("web", "--tail=2"), ("web", "--tail=0"), ("web", "--since=1h"),
    ("web", "--since-time=2020-01-01T00:00:00Z"), ("web", "--limit-bytes=7"), ("web", "--prefix"),
    ("two",), ("two", "-c", "b"), ("two", "b"), ("two", "--all-containers"), ("two", "--all-containers", "--prefix"),
    ("-l", "app=two"), ("-l", "app=dep", "--prefix"), ("deployment/dep",), ("deployment/dep", "--all-pods"),
    ("pod/web", "-c", "nginx"),
    # errors
    (), ("nope",), ("web", "-c", "zz"), ("web", "-p"), ("web", "--tail=-2"), ("two", "-c", "a", "b"),
    ("web", "--since=1h", "--since-time=2020-01-01T00:00:00Z"), ("two", "--all-containers", "-c", "a"),
    ("web", "-l", "app=web"), ("deployment/nope",),
]


@pytest.fixture(scope="module")
def ready(served, tmp_path_factory):
    return prepared(served, tmp_path_factory, "logs")


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "no-args")
def test_logs_as_kubectl(ready, remote, kubectl, args):
    ours, theirs = both(remote, kubectl, "logs", *args)
    if "--all-pods" in args or "-l" in args or "--all-containers" in args:
        # kubectl keeps its log requests in a Go map and reads them in its (random) order, one
        # per pod and container: compare the lines, not their order.
        ours, theirs = [(rc, sorted(out.splitlines()), err) for rc, out, err in (ours, theirs)]
    assert ours == theirs


@pytest.mark.parametrize("pod, args, lines", [
    ("web", ("web",), ["first line", "second line", "third line"]),
    ("two", ("two", "--all-containers", "--prefix"), ["[pod/two/init] init done", "[pod/two/a] hello from a"]),
])
def test_logs_follow_ends_when_the_pod_goes(ready, remote, kubectl, pod, args, lines):
    """-f prints what is there, then holds the streams open until the containers stop running."""
    import subprocess

    follow = subprocess.Popen(remote.argv0 + ["logs", "-f", *args] + remote.extra, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=remote.env)
    try:
        first = follow.stdout.readline()
        assert first.rstrip("\n") in lines
        assert follow.poll() is None  # still following
        assert kubectl.run("delete", "pod", pod, "--wait=false").returncode == 0
        assert follow.wait(timeout=60) == 0, follow.stderr.read()
        assert sorted([first.rstrip("\n")] + follow.stdout.read().splitlines()) == sorted(lines)
    finally:
        if follow.poll() is None:
            follow.kill()
        follow.communicate()
