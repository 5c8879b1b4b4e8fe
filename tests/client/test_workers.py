"""kubelite.client.workers: work runs on up to N threads, each future holds its value or its
exception, and leaving the pool waits for every thread. Concurrency is proven with barriers,
never with sleeps."""
from __future__ import annotations

import threading

import pytest

from kubelite.client.workers import Pool

BARRIER_SECONDS = 30  # a bound on a loaded machine, not an expected time


def test_work_runs_side_by_side_up_to_the_number_of_workers():
    three = threading.Barrier(3, timeout=BARRIER_SECONDS)
    with Pool(3) as pool:
        futures = [pool.submit(lambda i: (three.wait(), i)[1], i) for i in range(3)]
        assert [f.result() for f in futures] == [0, 1, 2]


def test_no_more_threads_than_workers_run_at_once():
    lock, running, most = threading.Lock(), [0], [0]
    release = threading.Event()

    def work(i):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(BARRIER_SECONDS)
        with lock:
            running[0] -= 1
        return i

    with Pool(2) as pool:
        futures = [pool.submit(work, i) for i in range(6)]
        release.set()
        assert [f.result() for f in futures] == list(range(6))
    assert most[0] <= 2


def test_a_futures_exception_is_the_works():
    def boom():
        raise ValueError("boom")

    with Pool(2) as pool:
        failed, fine = pool.submit(boom), pool.submit(lambda: "ok")
        assert isinstance(failed.exception(), ValueError)
        with pytest.raises(ValueError, match="boom"):
            failed.result()
        assert fine.exception() is None and fine.result() == "ok" and fine.done()


def test_map_keeps_the_order_and_raises_the_first_error():
    with Pool(4) as pool:
        assert pool.map(lambda x: x * 2, range(10)) == [x * 2 for x in range(10)]
    with Pool(2) as pool, pytest.raises(KeyError):
        pool.map(lambda x: {}[x] if x == 3 else x, range(6))


def test_leaving_the_pool_waits_for_its_threads():
    with Pool(3) as pool:
        for i in range(5):
            pool.submit(lambda: None)
        threads = list(pool._threads)
    assert threads and not any(t.is_alive() for t in threads)
