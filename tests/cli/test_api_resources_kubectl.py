"""api-resources, api-versions and cluster-info: the same bytes as kubectl against the same
`kubelite serve`; the embedded cluster's `api-resources -o wide` equals the recording of a real
kube-apiserver 1.32 (tests/data/reference/api-resources.txt)."""
from __future__ import annotations

import pathlib

import pytest

REFERENCE = pathlib.Path(__file__).parent.parent / "data" / "reference" / "api-resources.txt"

COMMANDS = [
    ["api-resources"], ["api-resources", "-o", "wide"], ["api-resources", "-o", "name"],
    ["api-resources", "--namespaced=false"], ["api-resources", "--namespaced=true", "--api-group=apps"],
    ["api-resources", "--namespaced=false", "--api-group=apps"], ["api-resources", "--api-group="],
    ["api-resources", "--verbs=create,get", "-o", "wide"], ["api-resources", "--verbs=create", "--verbs=watch"],
    ["api-resources", "--sort-by=kind"], ["api-resources", "--sort-by=name", "--no-headers"],
    ["api-resources", "--categories=all"], ["api-versions"], ["cluster-info"],
]


@pytest.mark.kubectl
def test_discovery_commands_match_kubectl(kubectl, remote):
    mismatches = []
    for argv in COMMANDS:
        want, got = kubectl.run(*argv), remote.run(*argv)
        if (want.returncode, want.stdout, want.stderr) != (got.returncode, got.stdout, got.stderr):
            mismatches.append((argv, want.stdout + want.stderr, got.stdout + got.stderr))
    assert not mismatches, mismatches


def test_embedded_api_resources_equal_the_recorded_server(embedded):
    r = embedded.run("api-resources", "-o", "wide")
    assert (r.returncode, r.stderr) == (0, "")
    # The recorded cluster had no metrics-server; kubelite's serves metrics.k8s.io as one that has
    # it (two rows, shown as kubectl shows them): compared apart, the rest against the recording.
    metrics = [line for line in r.stdout.splitlines(keepends=True) if " metrics.k8s.io/v1beta1 " in line]
    assert [line.split()[:5] for line in metrics] == [["nodes", "metrics.k8s.io/v1beta1", "false", "NodeMetrics",
                                                       "get,list"],
                                                      ["pods", "metrics.k8s.io/v1beta1", "true", "PodMetrics",
                                                       "get,list"]]
    assert "".join(line for line in r.stdout.splitlines(keepends=True) if line not in metrics) == \
        REFERENCE.read_text()


def test_api_resources_filters(embedded):
    r = embedded.run("api-resources", "--api-group=apps", "-o", "name")
    assert r.stdout == ("controllerrevisions.apps\ndaemonsets.apps\ndeployments.apps\nreplicasets.apps\n"
                        "statefulsets.apps\n")
    r = embedded.run("api-resources", "--namespaced=maybe")
    assert r.returncode == 1 and r.stderr.startswith('error: invalid argument "maybe" for "--namespaced" flag')
