"""The in-process door's requests do their storage work on the calling thread (server/door.py,
handlers/resources.py): no hand-over to the writer thread or the read pool, writes still one at a
time with the writer thread's."""
from __future__ import annotations

import threading

from kubelite.server.handlers import resources


def test_door_reads_and_writes_run_on_the_calling_thread(monkeypatch):
    import kubelite

    def no_pool(*args, **kwargs):
        raise AssertionError("storage work handed to another thread")

    threads = []
    one_writer = resources._one_writer

    def recorded(handler, *args):
        threads.append(threading.current_thread())
        assert resources._WRITE_LOCK.locked() is False  # taken by the call below, not before
        return one_writer(handler, *args)

    with kubelite.Cluster() as kube:
        monkeypatch.setattr(resources, "_writer", no_pool)
        monkeypatch.setattr(resources, "_one_writer", recorded)
        kube.apply([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "inline"}, "data": {"a": "1"}}])
        assert kube.get("configmaps", "inline")["data"] == {"a": "1"}
    assert threads and all(t is threading.current_thread() for t in threads)


def test_a_door_write_waits_for_the_writer_threads_write():
    import kubelite

    with kubelite.Cluster() as kube:
        resources._WRITE_LOCK.acquire()
        done = threading.Event()

        def write():
            kube.apply([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "later"}}])
            done.set()

        thread = threading.Thread(target=write)
        try:
            thread.start()
            assert not done.wait(0.2)  # held by "the writer thread"
        finally:
            resources._WRITE_LOCK.release()
        assert done.wait(60)
        thread.join(60)
        assert kube.get("configmaps", "later") is not None
