"""Leader election between clusters sharing one SQLite store, on one fake clock (no sleeping).

The rules are kube-controller-manager's (client-go leaderelection with a LeaseLock on
kube-system/kube-controller-manager): the first candidate creates the Lease; the others wait until
the record has not changed for leaseDurationSeconds since they first saw it, then take it over
(leaseTransitions + 1); a leader that cannot renew within the renew deadline stops leading; a clean
stop releases the Lease. Controllers with leader_only run only in the leader.
"""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.leader import LEASES, NAME, NAMESPACE, ElectionTimes

TIMES = ElectionTimes(lease_duration=15, renew_deadline=10, retry_period=2)
RS = "/apis/apps/v1/namespaces/default/replicasets"


@pytest.fixture
def clock():
    return FakeClock(1_800_000_000)


@pytest.fixture
def make(tmp_path, clock):
    made = []

    def make_cluster(identity: str | None, campaign: bool = True) -> Cluster:
        cluster = Cluster(f"sqlite:{tmp_path / 'state.db'}", clock=clock)
        if campaign:
            cluster.manager.elect(TIMES, identity=identity)
        made.append(cluster)
        return cluster

    yield make_cluster
    for cluster in made:
        cluster.close()


def lease(cluster: Cluster) -> dict:
    return cluster.manager.elector.client.get(LEASES, NAMESPACE, NAME)


def replicaset(name: str) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def pods_of(cluster: Cluster, name: str) -> list[str]:
    with cluster.http_client() as client:
        items = client.get("/api/v1/namespaces/default/pods", params={"labelSelector": f"app={name}"}).json()["items"]
    return sorted(p["metadata"]["name"] for p in items)


def test_the_first_candidate_creates_the_lease_as_kube_controller_manager(make, clock):
    one = make("one")
    assert one.settle()
    assert one.manager.leading()
    spec = lease(one)["spec"]
    assert spec["holderIdentity"] == "one"
    assert spec["leaseDurationSeconds"] == 15 and spec["leaseTransitions"] == 0
    assert spec["acquireTime"] == spec["renewTime"]
    assert spec["renewTime"].endswith("Z") and "." in spec["renewTime"]  # MicroTime
    renewed = spec["renewTime"]
    clock.advance(TIMES.retry_period)
    one.settle()
    again = lease(one)["spec"]
    assert again["renewTime"] > renewed and again["acquireTime"] == spec["acquireTime"]
    assert again["leaseTransitions"] == 0


def test_only_the_leader_runs_leader_only_controllers(make):
    one, two = make("one"), make("two")
    one.settle()
    two.settle()
    assert one.manager.leading() and not two.manager.leading()
    with two.http_client() as client:
        assert client.post(RS, json=replicaset("web")).status_code == 201
    two.settle()
    assert pods_of(two, "web") == []  # the follower's ReplicaSet controller does not act
    one.settle()
    assert len(pods_of(two, "web")) == 2


def test_a_follower_takes_over_a_lease_not_renewed_for_its_duration(make, clock):
    one, two = make("one"), make("two")
    one.settle()
    two.settle()
    assert not two.manager.leading()
    # `one` stops renewing (as if killed): `two` waits the lease duration from when it saw the record.
    clock.advance(TIMES.lease_duration - TIMES.retry_period)
    two.settle()
    assert not two.manager.leading()
    clock.advance(TIMES.retry_period + 0.5)
    two.settle()
    assert two.manager.leading()
    spec = lease(two)["spec"]
    assert spec["holderIdentity"] == "two" and spec["leaseTransitions"] == 1
    assert spec["acquireTime"] == spec["renewTime"]
    # The old leader comes back: it cannot renew (past its renew deadline) and follows.
    one.settle()
    assert not one.manager.leading()
    assert lease(one)["spec"]["holderIdentity"] == "two"


def test_a_renewing_leader_keeps_the_lease(make, clock):
    one, two = make("one"), make("two")
    one.settle()
    two.settle()
    for _ in range(12):  # well past the lease duration, one renewing all along
        clock.advance(TIMES.retry_period)
        one.settle()
        two.settle()
    assert one.manager.leading() and not two.manager.leading()
    assert lease(one)["spec"]["leaseTransitions"] == 0


def test_a_clean_stop_releases_the_lease_for_an_immediate_takeover(make, clock):
    one, two = make("one"), make("two")
    one.settle()
    two.settle()
    one.close()
    released = lease(two)["spec"]
    assert released["holderIdentity"] == "" and released["leaseDurationSeconds"] == 1
    clock.advance(TIMES.retry_period)  # the follower's next try, long before the lease duration
    two.settle()
    assert two.manager.leading()
    assert lease(two)["spec"]["leaseTransitions"] == 1  # client-go counts an acquisition after a release too


def test_an_observer_leaves_the_work_to_a_live_leader(make, clock):
    one = make("one")
    one.settle()
    embedded = make(None, campaign=False)  # what a short embedded command runs
    embedded.settle()
    assert not embedded.manager.leading()
    assert not embedded.manager.elector.campaign
    clock.advance(TIMES.lease_duration + 1)  # the leader is gone and its lease ran out
    embedded.settle()
    assert embedded.manager.leading()
    assert lease(embedded)["spec"]["holderIdentity"] == "one"  # an observer never writes the Lease


def test_a_memory_cluster_does_not_elect():
    with Cluster("memory://", clock=FakeClock()) as cluster:
        cluster.settle()
        assert cluster.manager.elector is None and cluster.manager.leading()
        with cluster.http_client() as client:
            assert client.get(f"/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases/{NAME}").status_code == 404


@pytest.mark.parametrize("times", [(15, 10, 10), (10, 10, 2), (15, 20, 2), (15, 10, 0)])
def test_election_times_must_be_ordered(times):
    with pytest.raises(ValueError, match="retry period < renew deadline < lease duration"):
        ElectionTimes(*times).check()
