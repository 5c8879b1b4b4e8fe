"""server.watchcache: LIST reads from memory that are never older than the store."""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.storage import open_store
from kubelite.server.storage.errors import StorageError
from kubelite.server.watchcache import WatchCaches

PREFIX = "/registry/core/configmaps/"


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    s = open_store("memory://" if request.param == "memory" else str(tmp_path / "s.db"))
    yield s
    s.close()


def _same(caches: WatchCaches, store, prefix: str) -> None:
    cached, direct = caches.range(prefix), store.range(prefix)
    assert [(kv.key, kv.value, kv.mod_revision) for kv in cached.kvs] == \
           [(kv.key, kv.value, kv.mod_revision) for kv in direct.kvs]
    assert cached.revision == direct.revision == store.current_revision()


def test_follows_creates_updates_and_deletes(store):
    caches = WatchCaches(store)
    store.create(PREFIX + "b/x", b"1")
    _same(caches, store, PREFIX)  # built here
    for ns in ("a", "b", "c", "ba"):
        for name in ("z", "m", "a"):
            store.create(f"{PREFIX}{ns}/{name}", f"{ns}{name}".encode())
    store.create("/registry/core/secrets/a/s", b"other resource")
    kv = store.get(PREFIX + "b/m")
    store.update(PREFIX + "b/m", b"changed", kv.mod_revision)
    store.delete(PREFIX + "a/z")
    for prefix in (PREFIX, PREFIX + "a/", PREFIX + "b/", PREFIX + "ba/", PREFIX + "none/"):
        _same(caches, store, prefix)
    caches.close()


def test_another_store_on_the_same_file_sees_each_write_at_once(tmp_path):
    """A second process's writes (here a second store on one SQLite file) are in the next LIST."""
    writer, reader = open_store(str(tmp_path / "s.db")), open_store(str(tmp_path / "s.db"))
    try:
        caches = WatchCaches(reader)
        caches.range(PREFIX)
        for i in range(30):
            writer.create(f"{PREFIX}ns/k{i:02}", b"v")
            page = caches.range(PREFIX + "ns/")
            assert len(page.kvs) == i + 1
            assert page.revision >= writer.current_revision()
        writer.delete(f"{PREFIX}ns/k05")
        assert f"{PREFIX}ns/k05" not in [kv.key for kv in caches.range(PREFIX).kvs]
        caches.close()
    finally:
        writer.close()
        reader.close()


def test_what_it_cannot_answer_goes_to_the_store(store):
    caches = WatchCaches(store)
    for i in range(5):
        store.create(f"{PREFIX}ns/k{i}", b"v")
    first = store.current_revision()
    store.create(f"{PREFIX}ns/k9", b"v")
    assert [kv.key[-2:] for kv in caches.range(PREFIX, limit=2).kvs] == ["k0", "k1"]
    assert [kv.key[-2:] for kv in caches.range(PREFIX, start_after=PREFIX + "ns/k3").kvs] == ["k4", "k9"]
    assert len(caches.range(PREFIX, revision=first).kvs) == 5
    caches.close()


def test_a_failed_cache_is_rebuilt(store):
    caches = WatchCaches(store)
    store.create(PREFIX + "ns/a", b"v")
    caches.range(PREFIX)
    failed = caches._caches[PREFIX]
    failed._watcher.fail(StorageError("the watch broke"))  # as a store ends a watch it cannot go on with
    store.create(PREFIX + "ns/b", b"v")
    _same(caches, store, PREFIX)
    assert failed.broken and caches._caches[PREFIX] is not failed
    caches.close()


def test_list_through_the_api_reflects_each_acknowledged_write(tmp_path):
    db = str(tmp_path / "state.db")
    with Cluster(db, clock=FakeClock(), controllers=False) as one, \
            Cluster(db, clock=FakeClock(), controllers=False) as two, \
            one.http_client() as writer, two.http_client() as reader:
        path = "/api/v1/namespaces/default/configmaps"
        for i in range(15):
            writer.post(path, json={"metadata": {"name": f"c{i}"}}).raise_for_status()
            listed = reader.get(path).json()
            assert len(listed["items"]) == i + 1
            assert int(listed["metadata"]["resourceVersion"]) >= int(
                writer.get(f"{path}/c{i}").json()["metadata"]["resourceVersion"])
        writer.patch(f"{path}/c3", json={"data": {"v": "2"}},
                     headers={"content-type": "application/merge-patch+json"}).raise_for_status()
        assert [i.get("data") for i in reader.get(path).json()["items"] if i["metadata"]["name"] == "c3"] == [
            {"v": "2"}]
        writer.delete(f"{path}/c3").raise_for_status()
        assert "c3" not in [i["metadata"]["name"] for i in reader.get(path).json()["items"]]


def test_a_watch_from_a_compacted_revision_is_served_from_the_window(store):
    caches = WatchCaches(store)
    store.create(PREFIX + "ns/a", b"1")
    caches.range(PREFIX)  # the cache (and its window) starts here
    since = store.current_revision()
    kv = store.update(PREFIX + "ns/a", b"2", None)
    store.create(PREFIX + "other/b", b"1")
    store.delete(PREFIX + "ns/a")
    store.compact(store.current_revision())
    watcher = caches.watch_from(PREFIX + "ns/", since)
    assert watcher is not None
    first, second = watcher.next(timeout=5), watcher.next(timeout=5)
    assert (str(first.type), first.kv.value, first.kv.mod_revision) == ("MODIFIED", b"2", kv.mod_revision)
    assert str(second.type) == "DELETED" and second.prev_kv.value == b"2"
    store.create(PREFIX + "ns/c", b"live")  # and then the events as they come
    live = watcher.next(timeout=5)
    assert (str(live.type), live.kv.key) == ("ADDED", PREFIX + "ns/c")
    watcher.close()
    caches.close()


def test_a_watch_from_before_the_window_is_not_served(store):
    store.create(PREFIX + "ns/a", b"1")
    before = store.current_revision()
    store.create(PREFIX + "ns/b", b"1")
    caches = WatchCaches(store)
    caches.range(PREFIX)  # built after `before`: its window does not reach back to it
    assert caches.watch_from(PREFIX, before - 1) is None
    caches.close()
