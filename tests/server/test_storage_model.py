"""Random operation sequences checked against a plain model of etcd's semantics.

The model keeps the whole state after every revision (a dict per revision) and
the list of events; the stores must agree with it on every outcome, on ranges
at every revision still available, and on the replayed watch history. The same model checks
MemoryStore, SQLiteStore and EtcdStore.
"""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.server.storage import (
    Compacted,
    Conflict,
    EventType,
    KeyExists,
    NotFound,
)
from kubelite.server.storage.memory import MemoryStore
from kubelite.server.storage.sqlite import SQLiteStore

from etcd_support import Etcd, requires_etcd

KEYS = ["/r/a", "/r/a/x", "/r/aa", "/r/b", "/s/a"]
PREFIXES = ["", "/r/", "/r/a", "/r/a/", "/s/", "/t/"]

operations = st.lists(
    st.one_of(
        st.tuples(st.just("create"), st.sampled_from(KEYS), st.binary(max_size=3)),
        st.tuples(st.just("update"), st.sampled_from(KEYS), st.binary(max_size=3), st.booleans()),
        st.tuples(st.just("delete"), st.sampled_from(KEYS), st.booleans()),
        st.tuples(st.just("compact"), st.floats(0, 1)),
    ),
    max_size=30,
)


class Model:
    """etcd semantics written out directly: the state after each revision."""

    def __init__(self):
        self.states = {1: {}}  # revision -> {key: (value, create_revision, mod_revision)}
        self.events = []  # (type, key, value, create_revision, revision, prev)
        self.revision = 1
        self.compacted = 0

    @property
    def now(self):
        return self.states[self.revision]

    def write(self, key, entry, kind, prev):
        state = dict(self.now)
        self.revision += 1
        if entry is None:
            del state[key]
            value, create = prev[0], prev[1]
        else:
            state[key] = entry
            value, create = entry[0], entry[1]
        self.states[self.revision] = state
        self.events.append((kind, key, value, create, self.revision, prev))

    def apply(self, op):
        """The outcome the store must give: an error class, or None."""
        kind, key = op[0], op[1] if len(op) > 1 else None
        if kind == "compact":
            target = max(1, round(op[1] * self.revision))
            if target <= self.compacted:
                return Compacted
            self.compacted = target
            return None
        current = self.now.get(key)
        if kind == "create":
            if current is not None:
                return KeyExists
            self.write(key, (op[2], self.revision + 1, self.revision + 1), "ADDED", None)
            return None
        if current is None:
            return NotFound
        stale = op[-1]
        if stale and kind == "update" or stale and kind == "delete":
            return Conflict
        if kind == "update":
            self.write(key, (op[2], current[1], self.revision + 1), "MODIFIED", current)
        else:
            self.write(key, None, "DELETED", current)
        return None


def run(store, ops):
    model = Model()
    for op in ops:
        expected = model.apply(op)
        outcome = None
        try:
            if op[0] == "compact":
                store.compact(max(1, round(op[1] * store.current_revision())))
            elif op[0] == "create":
                store.create(op[1], op[2])
            else:
                current = store.get(op[1])
                expected_rev = None if current is None else current.mod_revision
                if op[-1] and expected_rev is not None:
                    expected_rev -= 1  # stale on purpose
                if op[0] == "update":
                    store.update(op[1], op[2], expected_rev if expected_rev is not None else 1)
                else:
                    store.delete(op[1], expected_rev)
        except (Compacted, Conflict, KeyExists, NotFound) as err:
            outcome = type(err)
        assert outcome is expected, (op, outcome, expected)
    assert store.current_revision() == model.revision
    assert store.compact_revision() == model.compacted
    return model


def check_ranges(store, model):
    for revision in range(1, model.revision + 1):
        for prefix in PREFIXES:
            if revision < model.compacted:
                with pytest.raises(Compacted):
                    store.range(prefix, revision=revision)
                continue
            state = model.states[revision]
            want = [(k, *state[k]) for k in sorted(state) if k.startswith(prefix)]
            got = store.range(prefix, revision=revision)
            assert got.revision == revision
            assert [(kv.key, kv.value, kv.create_revision, kv.mod_revision) for kv in got.kvs] == want
            paged, after = [], None
            while True:
                page = store.range(prefix, start_after=after, limit=2, revision=revision)
                paged += page.kvs
                if not page.more:
                    break
                after = page.kvs[-1].key
            assert paged == got.kvs


def check_watch(store, model):
    start = max(model.compacted, 1)
    if model.compacted > 1:
        with pytest.raises(Compacted):
            store.watch("", from_revision=model.compacted - 1)
    for prefix in PREFIXES:
        watcher = store.watch(prefix, from_revision=start)
        want = [e for e in model.events if e[4] > start and e[1].startswith(prefix)]
        got = [watcher.next(5) for _ in want]
        assert watcher.next(0) is None
        watcher.close()
        assert [
            (str(e.type), e.kv.key, e.kv.value, e.kv.create_revision, e.revision,
             e.prev_kv and (e.prev_kv.value, e.prev_kv.create_revision, e.prev_kv.mod_revision))
            for e in got
        ] == [(*e[:5], e[5]) for e in want]
        assert all(e.type in EventType for e in got)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_memory_store_matches_the_model(ops):
    store = MemoryStore()
    model = run(store, ops)
    check_ranges(store, model)
    check_watch(store, model)
    store.close()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_sqlite_store_matches_the_model(ops):
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(f"{tmp}/state.db")
        model = run(store, ops)
        check_ranges(store, model)
        check_watch(store, model)
        store.close()
        reopened = SQLiteStore(f"{tmp}/state.db")
        check_ranges(reopened, model)
        reopened.close()


@requires_etcd
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_etcd_store_matches_the_model(ops):
    from kubelite.server.storage.etcd import EtcdStore

    # Revisions are etcd's own: every example needs a fresh etcd.
    with Etcd() as server:
        store = EtcdStore(server.url)
        try:
            model = run(store, ops)
            check_ranges(store, model)
            check_watch(store, model)
        finally:
            store.close()
