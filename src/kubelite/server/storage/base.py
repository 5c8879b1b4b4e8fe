"""The storage contract, modelled on etcd's MVCC key-value store.

One global revision counts every write. A fresh store is at revision 1 (as etcd
is), so the first write gets revision 2 and no object ever has resourceVersion
"0", which the API reserves for "any version". A key's ``mod_revision`` is the
revision of its last write and becomes the object's resourceVersion.

Compaction (``compact(c)``) forgets the changes made at or below ``c`` but keeps
the state as of ``c``: afterwards a range at a revision >= c still works, one
below c raises Compacted, and a watch needs ``from_revision >= c`` (it replays
the events strictly after ``from_revision``, each with its previous value).
"""

from __future__ import annotations

import abc
import contextlib
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .watch import Watcher


@dataclass(frozen=True, slots=True)
class KV:
    key: str
    value: bytes
    create_revision: int
    mod_revision: int


class EventType(str, enum.Enum):
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Event:
    """One write seen by a watcher.

    For DELETED, ``kv`` is the last value of the key stamped with the delete's
    revision (what the API server sends as the deleted object) and ``prev_kv``
    is that value at its own mod_revision.
    """

    type: EventType
    kv: KV
    prev_kv: KV | None
    revision: int


@dataclass(frozen=True, slots=True)
class RangeResult:
    kvs: list[KV]
    more: bool
    revision: int


class Store(abc.ABC):
    """A thread-safe, etcd-shaped key-value store. Every method is synchronous."""

    #: Whether other processes can open the same data (and so need leader election).
    shared = False

    @abc.abstractmethod
    def get(self, key: str) -> KV | None:
        """The current value of ``key``, or None."""

    @abc.abstractmethod
    def range(
        self,
        prefix: str,
        *,
        start_after: str | None = None,
        limit: int = 0,
        revision: int = 0,
    ) -> RangeResult:
        """Keys starting with ``prefix``, in lexicographic order, as of ``revision``.

        ``revision=0`` reads the current state. ``limit=0`` means no limit; with a
        limit, ``more`` says whether keys remain and the next page is read with
        ``start_after`` = the last key returned and ``revision`` = the result's
        revision. Raises Compacted below the compaction point and
        FutureRevision above the current revision.
        """

    def count(self, prefix: str, *, start_after: str | None = None, revision: int = 0) -> int:
        """How many keys ``range`` would return without a limit (a list's remainingItemCount).

        Backends answer without reading the values where they can; this default pages."""
        total, after = 0, start_after
        while True:
            page = self.range(prefix, start_after=after, limit=500, revision=revision)
            total += len(page.kvs)
            if not page.more or not page.kvs:
                return total
            after, revision = page.kvs[-1].key, page.revision

    @abc.abstractmethod
    def create(self, key: str, value: bytes) -> KV:
        """Create ``key``; KeyExists if it is present."""

    @abc.abstractmethod
    def update(self, key: str, value: bytes, expected_mod_revision: int | None) -> KV:
        """Replace the value if the key's mod_revision is the expected one.

        NotFound if absent, Conflict (with the current KV) on a mismatch.
        ``expected_mod_revision=None`` writes unconditionally.
        """

    @abc.abstractmethod
    def delete(self, key: str, expected_mod_revision: int | None = None) -> KV:
        """Delete ``key``; returns its last value stamped with the delete's revision."""

    @abc.abstractmethod
    def current_revision(self) -> int:
        """The revision of the latest write (1 on a fresh store)."""

    @abc.abstractmethod
    def compact_revision(self) -> int:
        """The revision of the last compaction (0 if never compacted)."""

    @abc.abstractmethod
    def watch(self, prefix: str, from_revision: int = 0) -> "Watcher":
        """Events for keys under ``prefix`` strictly after ``from_revision``.

        ``from_revision=0`` means "from the current revision". Compacted if
        ``from_revision`` is below the compaction point.
        """

    def sync_watchers(self) -> None:
        """Hand every write committed so far to the watchers before returning.

        Backends that deliver events from another thread (SQLite's poller, etcd's watch stream)
        catch up here; a caller that has just written can then rely on its watchers having seen
        the write. Backends feed a watcher through ``Watcher.offer`` and end it with ``fail``."""

    def durable_at_end(self) -> "contextlib.AbstractContextManager[None]":
        """A block of writes, on this thread, that are on disk when the block ends rather than
        each at its commit: for the many small writes of a first start, which a crash inside the
        block only sends back to be written again at the next start. SQLite makes the block one
        transaction: other threads and processes see its writes when it ends, and none of them if
        it ends with an exception. Backends whose every commit is cheap to make durable (memory,
        etcd's own log) keep their behaviour."""
        return contextlib.nullcontext()

    @abc.abstractmethod
    def compact(self, revision: int) -> None:
        """Drop the history at and below ``revision``, keeping the state as of it.

        Compacted if ``revision`` is not above the previous compaction point,
        FutureRevision if it is above the current revision.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Release resources and end every watcher. Idempotent."""

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
