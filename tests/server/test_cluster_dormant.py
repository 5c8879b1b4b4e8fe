"""A command's cluster (Cluster.catch_up / finish, what the embedded CLI runs): the controllers are
neither loaded nor run when nothing is due since the last command's settle (the store is at the
revision they settled at and none of their timers has come), and run exactly as before when
something is: a write or a watch of the command, another process's write, a timer that came."""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

START = 1_790_000_000.5
DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
}


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "state.db")


def command(db, at: float) -> Cluster:
    """A command's cluster opened at clock time `at` (catch_up done)."""
    cluster = Cluster(db, clock=FakeClock(at))
    cluster.catch_up()
    return cluster


def settled_store(db, at: float = START) -> int:
    """A first command (its cluster bootstraps and settles); the revision it leaves."""
    cluster = command(db, at)
    assert not cluster.dormant
    assert cluster.finish()
    revision = cluster.store.current_revision()
    cluster.close()
    return revision


def request(cluster: Cluster, method: str, path: str, body: dict | None = None, query: bytes = b""):
    from kubelite.server.door import http_scope

    headers = [(b"content-type", b"application/json")] if body is not None else []
    door = cluster.door()
    status, _, chunks = door.call(http_scope(method, "http", "kubelite", 80, path.encode(), query, headers),
                                  json.dumps(body).encode() if body is not None else b"")
    data = b"".join(chunks)
    chunks.close()
    return status, data


def pods(cluster: Cluster) -> list[dict]:
    status, data = request(cluster, "GET", "/api/v1/namespaces/default/pods")
    assert status == 200
    return json.loads(data)["items"]


def test_a_command_after_a_settle_does_not_load_the_controllers(db):
    revision = settled_store(db)
    cluster = command(db, START + 1)
    try:
        assert cluster.dormant and cluster._manager is None
        status, _ = request(cluster, "GET", "/api/v1/namespaces")
        assert status == 200
        assert cluster.finish()
        assert cluster._manager is None  # nothing came due meanwhile: not even loaded to settle
        assert cluster.store.current_revision() == revision
    finally:
        cluster.close()


def test_a_due_timer_runs_the_controllers_at_open(db):
    settled_store(db)
    # The simulated kubelet renews its node's Lease every 10 s: at 11 s that is due.
    cluster = command(db, START + 11)
    try:
        assert not cluster.dormant and cluster._manager is not None
        lease = cluster.api.get(cluster.registry.lookup("coordination.k8s.io", "v1", "leases"),
                                "kube-node-lease", "node-a")
        assert lease["spec"]["renewTime"] == cluster.clock.rfc3339_micro()  # renewed at the command's time
        assert cluster.finish()
    finally:
        cluster.close()
    assert command(db, START + 12).dormant  # and the next command finds nothing due again


def test_another_writer_runs_the_controllers_at_the_next_open(db):
    settled_store(db)
    # A write the controllers have not seen (a process that wrote and was killed before settling).
    writer = Cluster(db, clock=FakeClock(START + 1), controllers=False)
    r = writer.registry.lookup("apps", "v1", "deployments")
    from kubelite.server.core import WriteOptions

    writer.api.create(r, "default", DEPLOYMENT, WriteOptions())
    writer.close()
    cluster = command(db, START + 2)
    try:
        assert not cluster.dormant
        assert len(pods(cluster)) == 2  # the Deployment's ReplicaSet made its Pods at open
    finally:
        cluster.finish()
        cluster.close()


def test_a_write_wakes_the_controllers_before_it_and_they_settle_before_exit(db):
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        assert cluster.dormant
        status, _ = request(cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT)
        assert status == 201
        assert not cluster.dormant and cluster._manager is not None
        assert cluster.finish()
        assert len(pods(cluster)) == 2
    finally:
        cluster.close()
    again = command(db, START + 2)  # settled, nothing due: the next command skips them
    try:
        assert again.dormant
        assert len(pods(again)) == 2
    finally:
        again.close()


def test_dry_runs_and_reviews_do_not_wake_them(db):
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        status, _ = request(cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT,
                            query=b"dryRun=All")
        assert status == 201
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}}
        status, _ = request(cluster, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review)
        assert status == 201
        assert cluster.dormant and cluster._manager is None
    finally:
        cluster.close()


def test_a_watch_wakes_them(db):
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        from kubelite.server.door import http_scope

        scope = http_scope("GET", "http", "kubelite", 80, b"/api/v1/namespaces/default/pods",
                           b"watch=true&timeoutSeconds=1", [])
        status, _, chunks = cluster.door().call(scope, b"")
        assert not cluster.dormant and cluster._manager is not None
        assert status == 200
        for _ in chunks:  # until the server ends it (timeoutSeconds)
            pass
    finally:
        cluster.close()


def test_a_timer_that_comes_during_a_read_only_command_is_settled_before_exit(db):
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        assert cluster.dormant
        cluster.clock.advance(10)  # the command took long enough for the Lease renewal to be due
        assert cluster.finish()
        assert cluster._manager is not None
    finally:
        cluster.close()


def until(predicate, timeout: float = 30.0) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_command_that_polls_sees_the_controllers_wake_when_their_timer_comes(db):
    """`wait` and `delete --wait` poll with reads: the lookout wakes the controllers at their
    first timer, as when they ran in the background from the open."""
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        assert cluster.dormant
        cluster.clock.advance(10)  # the Lease renewal comes due while the command polls
        assert until(lambda: not cluster.dormant)
        assert cluster._manager is not None
    finally:
        cluster.close()


def test_a_command_that_polls_sees_them_wake_when_another_process_writes(db):
    settled_store(db)
    cluster = command(db, START + 1)
    try:
        assert cluster.dormant
        writer = Cluster(db, clock=FakeClock(START + 1), controllers=False)
        from kubelite.server.core import WriteOptions

        writer.api.create(writer.registry.lookup("apps", "v1", "deployments"), "default", DEPLOYMENT, WriteOptions())
        writer.close()
        assert until(lambda: not cluster.dormant)
        assert until(lambda: len(pods(cluster)) == 2)
    finally:
        cluster.close()


def test_nothing_due_means_the_controllers_would_write_nothing(db):
    """What a skipped catch-up leaves out: on a store with workloads of every kind, settled once
    the short timers of their start are past (a Job's pods ending, a status batched for a second:
    a controller started afresh does such a delayed sync at once), a command that runs the
    controllers anyway (started again, they list and sync everything) writes nothing before the
    due time they noted."""
    cluster = command(db, START)
    objects = [
        DEPLOYMENT,
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
         "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                  "template": {"metadata": {"labels": {"app": "db"}},
                               "spec": {"containers": [{"name": "c", "image": "postgres"}]}}}},
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
         "spec": {"selector": {"matchLabels": {"app": "agent"}},
                  "template": {"metadata": {"labels": {"app": "agent"}},
                               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "namespace": "default"},
         "spec": {"template": {"spec": {"restartPolicy": "Never",
                                        "containers": [{"name": "c", "image": "busybox"}]}}}},
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick", "namespace": "default"},
         "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
             "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
    ]
    try:
        for obj in objects:
            group_version = obj["apiVersion"]
            plural = obj["kind"].lower() + ("es" if obj["kind"].endswith("s") else "s")
            base = f"/api/{group_version}" if "/" not in group_version else f"/apis/{group_version}"
            path = f"{base}/namespaces/default/{plural}" if obj["kind"] != "Namespace" else f"{base}/namespaces"
            status, data = request(cluster, "POST", path, obj)
            assert status == 201, data
        cluster.advance(5, steps=True)
        assert cluster.finish()
        revision = cluster.store.current_revision()
        due = cluster.store.marks("controllers_revision", "controllers_due")
        assert due[0] == revision
    finally:
        cluster.close()
    moments = [START + 5.5]
    if due[1] != -1:
        moments.append(due[1] / 1e6 - 0.01)  # just before the earliest timer
    for at in moments:
        check = Cluster(db, clock=FakeClock(at))
        try:
            assert check._nothing_due()
            assert check.settle()  # the controllers, loaded and run all the same
            assert check.store.current_revision() == revision
        finally:
            check.close()
