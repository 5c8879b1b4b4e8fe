"""Behaviour of every storage backend: the etcd-shaped contract of kubelite.server.storage.

The same suite runs against MemoryStore, SQLiteStore and EtcdStore (a fresh etcd per test, see
etcd_support; skipped when etcd is not installed). Expected behaviour is
etcd's (revisions, compare-and-swap, ranges at a revision, watch, compaction)
as the Kubernetes API server relies on it.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from kubelite.server.storage import (
    KV,
    Compactor,
    Compacted,
    Conflict,
    EventType,
    FutureRevision,
    KeyExists,
    NotFound,
    StorageError,
    StoreClosed,
)
from kubelite.server.storage.memory import MemoryStore
from kubelite.server.storage.sqlite import SQLiteStore

from etcd_support import Etcd, have_etcd

PODS = "/registry/pods/default/"
TIMEOUT = 5.0


@pytest.fixture(params=["memory", "sqlite", "etcd"])
def store(request, tmp_path):
    if request.param == "memory":
        s = MemoryStore()
    elif request.param == "sqlite":
        s = SQLiteStore(tmp_path / "state.db")
    else:
        if not have_etcd():
            pytest.skip("etcd is not installed (apt-get install etcd-server)")
        server = Etcd().start()
        request.addfinalizer(server.close)
        from kubelite.server.storage.etcd import EtcdStore

        s = EtcdStore(server.url)
    yield s
    s.close()


def pod(name: str) -> str:
    return PODS + name


def drain(watcher, count: int) -> list:
    events = []
    for _ in range(count):
        event = watcher.next(TIMEOUT)
        assert event is not None, f"expected {count} events, got {len(events)}: {events}"
        events.append(event)
    return events


# -- revisions and single-key operations ---------------------------------------------


def test_fresh_store_is_at_revision_one_like_etcd(store):
    assert store.current_revision() == 1
    assert store.compact_revision() == 0
    assert store.get(pod("a")) is None
    assert store.range("/").kvs == []


def test_every_write_takes_the_next_revision(store):
    a = store.create(pod("a"), b"1")
    assert a == KV(pod("a"), b"1", 2, 2)
    b = store.update(pod("a"), b"2", a.mod_revision)
    assert (b.create_revision, b.mod_revision) == (2, 3)
    c = store.create(pod("c"), b"x")
    assert c.mod_revision == 4
    d = store.delete(pod("a"))
    assert d.mod_revision == 5
    assert store.current_revision() == 5


def test_create_if_absent(store):
    first = store.create(pod("a"), b"first")
    with pytest.raises(KeyExists) as err:
        store.create(pod("a"), b"second")
    assert err.value.key == pod("a")
    assert err.value.current == first
    assert store.get(pod("a")).value == b"first"
    assert store.current_revision() == first.mod_revision  # a failed write takes no revision


def test_create_after_delete_starts_a_new_life(store):
    first = store.create(pod("a"), b"1")
    store.delete(pod("a"))
    again = store.create(pod("a"), b"2")
    assert again.create_revision == again.mod_revision > first.create_revision


def test_update_is_compare_and_swap(store):
    a = store.create(pod("a"), b"1")
    b = store.update(pod("a"), b"2", a.mod_revision)
    with pytest.raises(Conflict) as err:
        store.update(pod("a"), b"stale", a.mod_revision)
    assert err.value.current == b
    assert err.value.expected == a.mod_revision
    assert store.get(pod("a")) == b
    assert store.current_revision() == b.mod_revision


def test_update_without_precondition_writes(store):
    a = store.create(pod("a"), b"1")
    b = store.update(pod("a"), b"2", None)
    assert b.value == b"2" and b.mod_revision == a.mod_revision + 1


def test_update_of_absent_key_is_not_found(store):
    with pytest.raises(NotFound) as err:
        store.update(pod("ghost"), b"x", 1)
    assert err.value.key == pod("ghost")
    assert store.current_revision() == 1


def test_delete_returns_last_value_at_the_delete_revision(store):
    a = store.create(pod("a"), b"1")
    b = store.update(pod("a"), b"2", a.mod_revision)
    gone = store.delete(pod("a"), b.mod_revision)
    assert gone == KV(pod("a"), b"2", a.create_revision, b.mod_revision + 1)
    assert store.get(pod("a")) is None
    with pytest.raises(NotFound):
        store.delete(pod("a"))


def test_delete_with_stale_precondition_conflicts(store):
    a = store.create(pod("a"), b"1")
    b = store.update(pod("a"), b"2", a.mod_revision)
    with pytest.raises(Conflict) as err:
        store.delete(pod("a"), a.mod_revision)
    assert err.value.current == b
    assert store.get(pod("a")) == b


def test_values_are_bytes_round_tripped_exactly(store):
    raw = bytes(range(256)) + '{"ü": "\u2603"}'.encode()
    store.create(pod("a"), raw)
    assert store.get(pod("a")).value == raw
    store.create(pod("b"), bytearray(b"ba"))
    assert store.get(pod("b")).value == b"ba"


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.create("", b"x"),
        lambda s: s.create(None, b"x"),
        lambda s: s.create("/k\x00", b"x"),
        lambda s: s.create("/k", "text is not bytes"),
        lambda s: s.update("/k", b"x", -1),
        lambda s: s.range("/", limit=-1),
        lambda s: s.range("/", revision="3"),
        lambda s: s.watch("/", from_revision=-5),
        lambda s: s.create("/bad-\ud800", b"x"),
        lambda s: s.range("/\udfff"),
        lambda s: s.range("/", start_after=3),
    ],
)
def test_bad_arguments_raise_storage_errors(store, call):
    with pytest.raises(StorageError):
        call(store)


# -- range ----------------------------------------------------------------------------


def test_range_is_lexicographic_and_bounded_by_prefix(store):
    for key in ["/registry/pods/default2/x", "/registry/pods/default/b", "/registry/pods/default/a",
                "/registry/pods/default/a-1", "/registry/pods/kube-system/z", "/registry/pods/default/B"]:
        store.create(key, key.encode())
    result = store.range("/registry/pods/default/")
    assert [kv.key for kv in result.kvs] == [
        "/registry/pods/default/B", "/registry/pods/default/a",
        "/registry/pods/default/a-1", "/registry/pods/default/b",
    ]
    assert result.more is False
    assert result.revision == store.current_revision()
    assert len(store.range("/registry/pods/").kvs) == 6
    assert len(store.range("").kvs) == 6


def test_range_pages_with_limit_and_start_after(store):
    names = [f"p{i:02d}" for i in range(7)]
    for name in names:
        store.create(pod(name), b"v")
    seen, after = [], None
    pages = 0
    while True:
        page = store.range(PODS, start_after=after, limit=3)
        pages += 1
        seen += [kv.key for kv in page.kvs]
        if not page.more:
            break
        after = page.kvs[-1].key
    assert seen == [pod(n) for n in names]
    assert pages == 3
    exact = store.range(PODS, limit=7)
    assert len(exact.kvs) == 7 and exact.more is False


def test_range_pages_stay_at_one_revision_while_writes_happen(store):
    for i in range(6):
        store.create(pod(f"p{i}"), b"old")
    first = store.range(PODS, limit=2)
    snapshot = first.revision
    # Writes between pages: change, delete, and add keys on both sides of the cursor.
    store.update(pod("p0"), b"new", None)
    store.update(pod("p4"), b"new", None)
    store.delete(pod("p3"))
    store.create(pod("p2a"), b"new")
    store.create(pod("p9"), b"new")
    kvs, page = list(first.kvs), first
    while page.more:
        page = store.range(PODS, start_after=page.kvs[-1].key, limit=2, revision=snapshot)
        assert page.revision == snapshot
        kvs += page.kvs
    assert [kv.key for kv in kvs] == [pod(f"p{i}") for i in range(6)]
    assert {kv.value for kv in kvs} == {b"old"}
    assert all(kv.mod_revision <= snapshot for kv in kvs)
    now = store.range(PODS)
    assert [kv.key for kv in now.kvs] == [pod(n) for n in ["p0", "p1", "p2", "p2a", "p4", "p5", "p9"]]


def test_range_at_an_old_revision_sees_deleted_and_older_values(store):
    a = store.create(pod("a"), b"1")
    store.create(pod("b"), b"1")
    at = store.current_revision()
    store.update(pod("a"), b"2", a.mod_revision)
    store.delete(pod("b"))
    old = store.range(PODS, revision=at)
    assert [(kv.key, kv.value) for kv in old.kvs] == [(pod("a"), b"1"), (pod("b"), b"1")]
    assert store.range(PODS, revision=a.mod_revision).kvs == [a]
    assert store.range(PODS, revision=1).kvs == []


def test_range_at_a_future_revision_fails(store):
    store.create(pod("a"), b"1")
    with pytest.raises(FutureRevision) as err:
        store.range(PODS, revision=store.current_revision() + 1)
    assert err.value.current_revision == store.current_revision()


# -- watch ----------------------------------------------------------------------------


def test_watch_from_now_sees_every_write_in_order_without_gaps(store):
    watcher = store.watch(PODS)
    start = store.current_revision()
    a = store.create(pod("a"), b"1")
    store.create(pod("b"), b"1")
    store.update(pod("a"), b"2", a.mod_revision)
    store.delete(pod("b"))
    for i in range(20):
        store.create(pod(f"n{i:02d}"), b"x")
    events = drain(watcher, 24)
    assert [e.revision for e in events] == list(range(start + 1, start + 25))
    assert [e.type for e in events[:4]] == [
        EventType.ADDED, EventType.ADDED, EventType.MODIFIED, EventType.DELETED,
    ]
    assert all(e.kv.mod_revision == e.revision for e in events)
    assert watcher.next(0.05) is None
    watcher.close()


def test_watch_events_carry_previous_values(store):
    a = store.create(pod("a"), b"1")
    watcher = store.watch(PODS)
    b = store.update(pod("a"), b"2", a.mod_revision)
    gone = store.delete(pod("a"))
    modified, deleted = drain(watcher, 2)
    assert modified.kv == b and modified.prev_kv == a
    assert deleted.type is EventType.DELETED
    assert deleted.kv == gone == KV(pod("a"), b"2", a.create_revision, deleted.revision)
    assert deleted.prev_kv == b
    watcher.close()


def test_added_event_has_no_previous_value(store):
    watcher = store.watch(PODS)
    created = store.create(pod("a"), b"1")
    (event,) = drain(watcher, 1)
    assert event.type is EventType.ADDED and event.kv == created and event.prev_kv is None
    watcher.close()


def test_watch_filters_by_prefix(store):
    watcher = store.watch("/registry/pods/default/")
    store.create("/registry/pods/default2/x", b"no")
    store.create("/registry/configmaps/default/x", b"no")
    mine = store.create(pod("x"), b"yes")
    (event,) = drain(watcher, 1)
    assert event.kv == mine
    assert watcher.next(0.05) is None
    watcher.close()


def test_watch_from_a_revision_replays_history_then_continues(store):
    a = store.create(pod("a"), b"1")
    b = store.update(pod("a"), b"2", a.mod_revision)
    store.create(pod("b"), b"1")
    store.delete(pod("b"))
    watcher = store.watch(PODS, from_revision=a.mod_revision)
    replay = drain(watcher, 3)
    assert [e.revision for e in replay] == [b.mod_revision, b.mod_revision + 1, b.mod_revision + 2]
    assert replay[0].prev_kv == a
    assert [e.type for e in replay] == [EventType.MODIFIED, EventType.ADDED, EventType.DELETED]
    live = store.create(pod("c"), b"1")
    (event,) = drain(watcher, 1)
    assert event.kv == live and event.revision == b.mod_revision + 3
    watcher.close()


def test_watch_from_a_future_revision_waits_for_it(store):
    watcher = store.watch(PODS, from_revision=store.current_revision() + 2)
    store.create(pod("a"), b"1")
    store.create(pod("b"), b"1")
    third = store.create(pod("c"), b"1")
    (event,) = drain(watcher, 1)
    assert event.kv == third
    watcher.close()


def test_watch_consumed_from_another_thread(store):
    watcher = store.watch(PODS)
    got = []
    reader = threading.Thread(target=lambda: got.extend(watcher))
    reader.start()
    for i in range(10):
        store.create(pod(f"t{i}"), b"x")
    deadline = 50
    while len(got) < 10 and deadline:
        threading.Event().wait(0.1)
        deadline -= 1
    watcher.close()
    reader.join(TIMEOUT)
    assert not reader.is_alive()
    assert [e.kv.key for e in got] == [pod(f"t{i}") for i in range(10)]


def test_closed_watcher_stops_iteration(store):
    watcher = store.watch(PODS)
    watcher.close()
    store.create(pod("a"), b"1")
    assert watcher.next(0.05) is None
    assert list(watcher) == []


def test_closing_the_store_ends_its_watchers(store):
    watcher = store.watch(PODS)
    store.close()
    assert watcher.next(1) is None
    with pytest.raises(StoreClosed):
        store.create(pod("a"), b"1")


def test_async_consumption(store):
    async def scenario():
        watcher = store.watch(PODS)
        assert await watcher.anext(timeout=0.05) is None
        loop = asyncio.get_running_loop()
        # A write from another thread wakes the waiting coroutine.
        writer = loop.run_in_executor(None, lambda: [store.create(pod(f"w{i}"), b"x") for i in range(3)])
        first = await watcher.anext(timeout=TIMEOUT)
        await writer
        rest = []
        async for event in watcher:
            rest.append(event)
            if len(rest) == 2:
                watcher.close()
        return first, rest

    first, rest = asyncio.run(scenario())
    assert [e.kv.key for e in [first, *rest]] == [pod("w0"), pod("w1"), pod("w2")]


# -- compaction -----------------------------------------------------------------------


def test_compaction_keeps_state_and_drops_older_history(store):
    a = store.create(pod("a"), b"1")
    b = store.create(pod("b"), b"1")
    a2 = store.update(pod("a"), b"2", a.mod_revision)
    store.delete(pod("b"))
    c = store.create(pod("c"), b"1")
    at = c.mod_revision
    store.update(pod("c"), b"2", c.mod_revision)
    store.compact(at)
    assert store.compact_revision() == at
    with pytest.raises(Compacted) as err:
        store.range(PODS, revision=at - 1)
    assert (err.value.revision, err.value.compact_revision) == (at - 1, at)
    assert store.range(PODS, revision=at).kvs == [a2, c]
    assert [kv.value for kv in store.range(PODS).kvs] == [b"2", b"2"]
    assert store.get(pod("a")) == a2
    assert b.key not in {kv.key for kv in store.range(PODS).kvs}


def test_watch_below_the_compaction_point_is_compacted(store):
    a = store.create(pod("a"), b"1")
    a2 = store.update(pod("a"), b"2", a.mod_revision)
    a3 = store.update(pod("a"), b"3", a2.mod_revision)
    store.compact(a2.mod_revision)
    with pytest.raises(Compacted):
        store.watch(PODS, from_revision=a.mod_revision)
    watcher = store.watch(PODS, from_revision=a2.mod_revision)
    (event,) = drain(watcher, 1)
    assert event.kv == a3 and event.prev_kv == a2
    watcher.close()


def test_compaction_keeps_previous_values_of_later_deletes(store):
    a = store.create(pod("a"), b"1")
    store.create(pod("z"), b"1")
    store.compact(store.current_revision())
    store.delete(pod("a"))
    watcher = store.watch(PODS, from_revision=store.compact_revision())
    (event,) = drain(watcher, 1)
    assert event.type is EventType.DELETED and event.prev_kv == a
    watcher.close()


def test_revisions_are_the_range_without_the_values(store):
    a = store.create(pod("a"), b"1")
    store.create(pod("b"), b"1")
    store.create("/registry/other/x", b"1")
    store.update(pod("a"), b"2", a.mod_revision)
    store.delete(pod("b"))
    store.create(pod("c"), b"1")
    assert store.revisions(PODS) == [(kv.key, kv.mod_revision) for kv in store.range(PODS).kvs]
    assert [key for key, _ in store.revisions(PODS)] == [pod("a"), pod("c")]


def test_prefix_version_is_never_again_what_it_was_before_a_write_under_the_prefix(store):
    """Equal versions mean nothing under the prefix was written in between (what the RBAC
    policy is read again by), compactions included: one that drops a delete's rows must not bring
    back a version read before that delete."""
    first = store.prefix_version(PODS)
    assert store.prefix_version(PODS) == first
    store.create(pod("keep"), b"1")
    a = store.create(pod("a"), b"1")
    created = store.prefix_version(PODS)
    store.update(pod("a"), b"2", a.mod_revision)
    updated = store.prefix_version(PODS)
    store.delete(pod("a"))
    deleted = store.prefix_version(PODS)
    assert len({repr(v) for v in (first, created, updated, deleted)}) == 4
    store.compact(store.current_revision())  # drops every row of "a"
    compacted = store.prefix_version(PODS)
    assert compacted not in (first, created, updated)
    store.create(pod("b"), b"1")
    assert store.prefix_version(PODS) not in (first, created, updated, deleted, compacted)


def test_compaction_arguments_follow_etcd(store):
    store.create(pod("a"), b"1")
    store.create(pod("b"), b"1")
    with pytest.raises(FutureRevision):
        store.compact(store.current_revision() + 1)
    store.compact(2)
    with pytest.raises(Compacted):
        store.compact(2)
    store.compact(3)
    assert store.compact_revision() == 3


def test_writes_continue_after_compaction(store):
    a = store.create(pod("a"), b"1")
    store.compact(a.mod_revision)
    b = store.update(pod("a"), b"2", a.mod_revision)
    assert b.mod_revision == a.mod_revision + 1
    store.delete(pod("a"))
    store.compact(store.current_revision())
    assert store.range(PODS).kvs == []
    assert store.create(pod("a"), b"3").create_revision == b.mod_revision + 2


# -- concurrency ----------------------------------------------------------------------


def test_concurrent_cas_increments_have_one_winner_per_revision(store):
    key = "/registry/counters/c"
    store.create(key, b"0")
    watcher = store.watch(key)
    threads, per_thread = 4, 25
    wins: list[int] = []
    wins_lock = threading.Lock()
    errors = []

    def increment():
        try:
            for _ in range(per_thread):
                while True:
                    current = store.get(key)
                    value = str(int(current.value) + 1).encode()
                    try:
                        written = store.update(key, value, current.mod_revision)
                    except Conflict:
                        continue
                    with wins_lock:
                        wins.append(written.mod_revision)
                    break
        except Exception as err:  # surface failures from worker threads
            errors.append(err)

    workers = [threading.Thread(target=increment) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert not errors
    total = threads * per_thread
    assert store.get(key).value == str(total).encode()
    assert len(wins) == len(set(wins)) == total
    events = drain(watcher, total)
    assert sorted(wins) == [e.revision for e in events]
    # Each winner saw exactly the value the previous winner wrote.
    assert [int(e.kv.value) for e in events] == list(range(1, total + 1))
    assert all(int(e.prev_kv.value) + 1 == int(e.kv.value) for e in events)
    watcher.close()


# -- periodic compaction ----------------------------------------------------------------


def test_compactor_keeps_one_interval_of_history(store):
    compactor = Compactor(store, interval=60)
    assert compactor.tick() is None  # first round only records the revision
    seen = store.current_revision()
    a = store.create(pod("a"), b"1")
    store.update(pod("a"), b"2", a.mod_revision)
    assert compactor.tick() == seen
    assert store.compact_revision() == seen
    # History written since the previous round is still there.
    assert store.range(PODS, revision=a.mod_revision).kvs == [a]
    assert compactor.tick() == store.current_revision()
    assert compactor.tick() is None  # nothing written since: nothing to do
