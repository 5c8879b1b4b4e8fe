"""The Deployment, ReplicaSet and ReplicationController controllers replayed against the recordings
of a real kube-controller-manager v1.32 (tests/data/controllers/, see NOTICE-deployments.md).

Each case's kubectl commands are done at their recorded times on a FakeClock cluster running every
default controller (scheduler and simulated kubelet included); then the controllers' Events, the
Deployment's condition transitions and the final objects must be the recording's.
"""
from __future__ import annotations

import pytest

from deploy_replay import (COMPONENTS, Names, Replay, condition_transitions, controller_events, normalise_object,
                           reference_final, reference_stream)

CASES = {
    "deploy-create-3": "web",
    "deploy-rolling-update": "web",
    "deploy-recreate": "web",
    "deploy-pause-resume-undo": "web",
    "deploy-scale": "web",
    "deploy-progress-deadline": "web",
    "replicaset-standalone": "frontend",
    "replicationcontroller": "frontend",
}
WORKLOADS = ("deployments", "replicasets", "replicationcontrollers")


@pytest.fixture(scope="module")
def replayed():
    done: dict[str, tuple] = {}

    def get(case: str):
        if case not in done:
            with Replay(case) as replay:
                replay.run()
                finals = {r: replay.final(r) for r in WORKLOADS + ("pods",)}
                done[case] = (list(replay.seen()), finals)
        return done[case]

    return get


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("component", COMPONENTS)
def test_events_are_the_recorded_ones(replayed, case, component):
    seen, _ = replayed(case)
    owner = CASES[case]
    assert controller_events(seen, owner, component) == controller_events(reference_stream(case), owner, component)


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith("deploy-")])
def test_condition_transitions_are_the_recorded_ones(replayed, case):
    seen, _ = replayed(case)
    assert condition_transitions(seen) == condition_transitions(reference_stream(case))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("resource", WORKLOADS)
def test_final_objects_are_the_recorded_ones(replayed, case, resource):
    _, finals = replayed(case)
    want = _normalised(reference_final(case, resource), CASES[case], reference_stream(case))
    got = _normalised(finals[resource], CASES[case], replayed(case)[0])
    assert got == want


@pytest.mark.parametrize("case", CASES)
def test_final_pods_are_owned_and_labelled_as_recorded(replayed, case):
    _, finals = replayed(case)

    def shape(pods, stream):
        names = _names(CASES[case], stream)
        return sorted((p["metadata"].get("generateName", "") and names.rs_name(p["metadata"]["generateName"][:-1]),
                       tuple(sorted((k, v) for k, v in p["metadata"].get("labels", {}).items()
                                    if k != "pod-template-hash")),
                       tuple((r["kind"], names.rs_name(r["name"]), r.get("controller"), r.get("blockOwnerDeletion"))
                             for r in p["metadata"].get("ownerReferences") or []),
                       p["status"].get("phase"))
                      for p in pods)

    assert shape(finals["pods"], replayed(case)[0]) == shape(reference_final(case, "pods"), reference_stream(case))


def _names(owner: str, stream: list[dict]) -> Names:
    """ReplicaSet names numbered in the order the watch first saw them."""
    names = Names(owner)
    for e in stream:
        if e["resource"] == "replicasets":
            names.rs_name(e["object"]["metadata"]["name"])
    return names


def _normalised(items: list[dict], owner: str, stream: list[dict]) -> list[dict]:
    names = _names(owner, stream)
    out = []
    for obj in items:
        obj = normalise_object(obj, names)
        obj.pop("apiVersion", None)
        obj.pop("kind", None)
        out.append(obj)
    return sorted(out, key=lambda o: o["metadata"]["name"])


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith("deploy-")])
def test_replica_set_names_are_the_recorded_ones(replayed, case):
    """The pod-template-hash is kube-controller-manager's: the ReplicaSets have the recorded names."""
    _, finals = replayed(case)
    assert sorted(rs["metadata"]["name"] for rs in finals["replicasets"]) == \
        sorted(rs["metadata"]["name"] for rs in reference_final(case, "replicasets"))
