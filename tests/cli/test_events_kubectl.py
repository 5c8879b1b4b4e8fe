"""Differential: `kubelite events` and /usr/bin/kubectl events against the same `kubelite serve`
(the Scheduled events of its scheduler, the controllers' events), LAST SEEN ages aside."""
from __future__ import annotations

import pytest

from pod_cli_support import both, prepared

pytestmark = pytest.mark.kubectl

CASES = [
    (), ("-A",), ("-o", "yaml"), ("-o", "name"), ("-o", "jsonpath={.items[*].reason}"), ("--for", "pod/web"),
    ("--for", "deployment/dep"), ("--for", "po/two", "-o", "json"), ("--types=Warning",),
    ("--types=normal", "--no-headers"), ("--chunk-size=1",), ("-n", "kube-system"),
    # errors
    ("--types=Bogus",), ("--for", "web"), ("--for", "pod/a/b"), ("--for", "nosuchtype/x"), ("-o", "wide"),
]


@pytest.fixture(scope="module")
def ready(served, tmp_path_factory):
    return prepared(served, tmp_path_factory, "events")


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "no-args")
def test_events_as_kubectl(ready, remote, kubectl, args):
    ours, theirs = both(remote, kubectl, "events", *args)
    assert ours == theirs


def test_scheduled_events_are_listed(ready, remote):
    done = remote.run("events", "--for", "pod/web")
    assert done.returncode == 0
    assert "Normal   Scheduled   Pod/web   Successfully assigned default/web to node-a" in done.stdout


def test_watch_prints_new_events_until_the_request_timeout(ready, remote, kubectl):
    ours = remote.run("events", "-w", "--for", "pod/two", "--request-timeout=2s")
    theirs = kubectl.run("events", "-w", "--for", "pod/two", "--request-timeout=2s")
    assert (ours.returncode, ours.stdout.splitlines()[0]) == (theirs.returncode, theirs.stdout.splitlines()[0])
    assert "Successfully assigned default/two to node-a" in ours.stdout
