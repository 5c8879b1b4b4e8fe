"""SQLiteStore.when_durable(callback, loop): an event loop's writes wait for a child process's
fsync of the log, asked and answered through pipes the loop watches (no thread of the server
takes the interpreter from the loop for it). Each wait is answered on the loop's thread, only
once a sync asked for after its commit has ended; a failed sync fails the waits; a process gone
hands them to the syncer thread; closing the store ends them."""
from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest

from kubelite.server.storage import StorageError
from kubelite.server.storage import sqlite as sqlite_module
from kubelite.server.storage.errors import StoreClosed
from kubelite.server.storage.sqlite import SQLiteStore

TIMEOUT = 10.0
_FSYNC = "            os.fsync(fd)\n"


@pytest.fixture
def store(tmp_path):
    opened = SQLiteStore(tmp_path / "state.db")
    yield opened
    opened.close()


def _before_each_fsync(monkeypatch, *lines: str) -> None:
    """The child process runs `lines` (Python, the fd open) before each of its fsyncs."""
    source = sqlite_module._SYNC_PROCESS
    assert source.count(_FSYNC) == 1
    added = "".join(f"            {line}\n" for line in lines)
    monkeypatch.setattr(sqlite_module, "_SYNC_PROCESS", source.replace(_FSYNC, added + _FSYNC))


def _gated(monkeypatch, tmp_path) -> tuple:
    """Each sync of the child process first writes `reached`, waits for `gate` and logs the path
    it syncs to `log`: (gate, reached, log)."""
    gate, reached, log = tmp_path / "gate", tmp_path / "reached", tmp_path / "log"
    _before_each_fsync(
        monkeypatch,
        f"open({str(reached)!r}, 'w').close()",
        f"[__import__('time').sleep(0.002) for _ in iter(lambda: os.path.exists({str(gate)!r}), True)]",
        f"open({str(log)!r}, 'a').write(os.readlink(f'/proc/self/fd/{{fd}}') + '\\n')",
    )
    return gate, reached, log


async def _until(condition, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


def _recorder(store) -> tuple[list, object]:
    """A callback recording (failure, its thread, the commits known synced then)."""
    got = []
    return got, lambda failure: got.append((failure, threading.get_ident(), store._syncs.synced))


async def _started(store) -> None:
    """A first write's wait on this loop (the syncer thread's: the process is starting), then
    the process ready."""
    store.create("/registry/pods/default/first", b"x")
    done = asyncio.get_running_loop().create_future()
    store.when_durable(done.set_result, asyncio.get_running_loop())
    assert await asyncio.wait_for(done, TIMEOUT) is None
    await _until(lambda: store._syncs._loop_syncs._ready, "the process to start")


async def _wait_under_way(store, callback, reached):
    """One write waiting on this loop, its sync begun (and gated): the child process."""
    await _started(store)
    store.create("/registry/pods/default/a", b"x")
    store.when_durable(callback, asyncio.get_running_loop())
    await _until(reached.exists, "the sync to begin")
    return store._syncs._loop_syncs._process


def test_waits_are_answered_on_the_loop_after_the_child_process_synced_the_log(store, tmp_path, monkeypatch):
    gate, reached, log = _gated(monkeypatch, tmp_path)
    got, callback = _recorder(store)

    async def run():
        loop = asyncio.get_running_loop()
        await _started(store)
        store.create("/registry/pods/default/p0", b"x")
        store.when_durable(callback, loop)
        await _until(reached.exists, "the first sync to begin")
        first = store._committed
        for i in range(1, 5):  # committed while the first sync runs: they wait for the next one
            store.create(f"/registry/pods/default/p{i}", b"x")
            store.when_durable(callback, loop)
        for _ in range(20):
            await asyncio.sleep(0)
        assert got == []  # nothing answered before the gated sync ended
        gate.touch()
        await _until(lambda: len(got) == 5, "the five answers")
        return first, threading.get_ident(), store._syncs._loop_syncs._process

    first, loop_thread, process = asyncio.run(run())
    assert [(failure, thread) for failure, thread, _ in got] == [(None, loop_thread)] * 5
    assert got[0][2] >= first and all(synced == store._committed for _, _, synced in got[1:])
    assert log.read_text().splitlines() == [str(tmp_path / "state.db-wal")] * 2  # one sync for the four
    assert process.pid != os.getpid() and process.poll() is None
    assert not store.unsynced()


def test_a_first_write_does_not_wait_for_the_process_to_start(store, tmp_path, monkeypatch):
    gate, log = tmp_path / "gate", tmp_path / "log"
    ready = 'os.write(1, b"ready\\n")\n'
    assert sqlite_module._SYNC_PROCESS.count(ready) == 1
    monkeypatch.setattr(sqlite_module, "_SYNC_PROCESS", sqlite_module._SYNC_PROCESS.replace(
        ready, f"[__import__('time').sleep(0.002) for _ in iter(lambda: os.path.exists({str(gate)!r}), True)]\n"
               + ready))
    _before_each_fsync(monkeypatch, f"open({str(log)!r}, 'a').write('synced\\n')")

    async def write(name):
        store.create(f"/registry/pods/default/{name}", b"x")
        done = asyncio.get_running_loop().create_future()
        store.when_durable(done.set_result, asyncio.get_running_loop())
        assert await asyncio.wait_for(done, TIMEOUT) is None
        assert not store.unsynced()

    async def run():
        await write("a")  # answered while the process has not started: by the syncer thread
        syncs = store._syncs._loop_syncs
        assert not syncs._ready and store._syncs._syncer is not None and not log.exists()
        gate.touch()
        await _until(lambda: syncs._ready, "the process to start")
        await write("b")
        assert log.read_text() == "synced\n"  # the process's sync this time

    asyncio.run(run())


def test_a_next_loop_is_served_by_the_same_process_and_closing_the_store_ends_it(store, tmp_path):
    pids, got = [], []

    async def write(i):
        store.create(f"/registry/pods/default/p{i}", b"x")
        done = asyncio.get_running_loop().create_future()
        store.when_durable(done.set_result, asyncio.get_running_loop())
        got.append(await asyncio.wait_for(done, TIMEOUT))
        pids.append(store._syncs._loop_syncs._process.pid)

    asyncio.run(_started(store))
    asyncio.run(write(0))
    process = store._syncs._loop_syncs._process
    asyncio.run(write(1))  # asyncio.run's loop after the last one, closed
    assert got == [None, None] and pids[0] == pids[1] == process.pid
    store.close()
    assert process.poll() is not None  # ended and reaped


def test_a_failed_sync_fails_the_waits_and_the_next_sync_is_asked_for_again(store, tmp_path, monkeypatch):
    failing = tmp_path / "failing"
    failing.touch()
    _before_each_fsync(monkeypatch, f"if os.path.exists({str(failing)!r}): raise OSError(5, 'Input/output error')")
    got, callback = _recorder(store)

    async def run():
        loop = asyncio.get_running_loop()
        await _started(store)
        store.create("/registry/pods/default/a", b"x")
        store.when_durable(callback, loop)
        await _until(lambda: got, "the failed sync's answer")
        failing.unlink()
        store.when_durable(callback, loop)  # the commit is still not known on disk
        await _until(lambda: len(got) == 2, "the next sync's answer")

    asyncio.run(run())
    failure = got[0][0]
    assert isinstance(failure, StorageError) and not isinstance(failure, StoreClosed)
    assert str(failure) == f"{tmp_path / 'state.db'}: [Errno 5] Input/output error"
    assert got[1][0] is None and not store.unsynced()


def test_the_waits_of_a_process_gone_are_answered_by_the_syncer_thread(store, tmp_path, monkeypatch):
    gate, reached, log = _gated(monkeypatch, tmp_path)
    got, callback = _recorder(store)

    async def run():
        process = await _wait_under_way(store, callback, reached)
        os.kill(process.pid, signal.SIGKILL)
        await _until(lambda: got, "the answer")
        store.create("/registry/pods/default/b", b"x")
        store.when_durable(callback, asyncio.get_running_loop())  # the thread from now on
        await _until(lambda: len(got) == 2, "the second answer")
        return threading.get_ident(), process

    loop_thread, process = asyncio.run(run())
    assert [(failure, thread) for failure, thread, _ in got] == [(None, loop_thread)] * 2
    assert not store.unsynced() and store._syncs._loop_syncs is None and store._syncs._syncer is not None
    assert process.poll() == -signal.SIGKILL and not log.exists()  # the gated process synced nothing


def test_closing_the_store_from_another_thread_ends_a_wait_on_the_loop(store, tmp_path, monkeypatch):
    _, reached, _ = _gated(monkeypatch, tmp_path)
    got, callback = _recorder(store)

    async def run():
        process = await _wait_under_way(store, callback, reached)
        # (the gate stays closed: close() syncs on its own thread, then ends the waits)
        closing = threading.Thread(target=store.close)
        closing.start()
        await _until(lambda: got, "the answer")
        closing.join(TIMEOUT)
        return threading.get_ident(), process

    loop_thread, process = asyncio.run(run())
    assert len(got) == 1 and isinstance(got[0][0], StoreClosed) and got[0][1] == loop_thread
    assert process.wait(TIMEOUT) is not None
