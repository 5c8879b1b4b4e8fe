"""kubelite.client.inorder: independent work runs side by side, results come back in the order
given, and what must run alone does. Concurrency is proven with barriers (two works that each wait
for the other can only finish side by side), never with sleeps."""
from __future__ import annotations

import threading

import pytest

from kubelite.client.inorder import Ready, SaidAside, in_order, independent, workers_for

BARRIER_SECONDS = 30  # a bound on a loaded machine, not an expected time
LINGER_SECONDS = 0.02


class Tracker:
    """Work that records how many works are in flight whenever one starts or ends."""

    def __init__(self):
        self.lock = threading.Lock()
        self.in_flight = 0
        self.seen: dict = {}  # item -> (in flight when it started, in flight when it ended)
        self.keys_in_flight: list = []
        self.overlapping_keys: list = []

    def __call__(self, item):
        name, key = item
        with self.lock:
            self.in_flight += 1
            if key is not None and key in self.keys_in_flight:
                self.overlapping_keys.append(name)
            self.keys_in_flight.append(key)
            started = self.in_flight
        # stay in flight a moment, so that a work started out of turn would overlap this one
        # (this only widens the window a wrong order shows in; a right order passes at any speed)
        threading.Event().wait(LINGER_SECONDS)
        with self.lock:
            self.seen[name] = (started, self.in_flight)
            self.in_flight -= 1
            self.keys_in_flight.remove(key)
        if name.startswith("boom"):
            raise ValueError(name)
        return name.upper()


def _results(pairs):
    out = []
    for item, future in pairs:
        try:
            out.append((item[0], future.result()))
        except ValueError as err:
            out.append((item[0], f"error {err}"))
    return out


def test_independent_work_runs_side_by_side():
    both = threading.Barrier(2, timeout=BARRIER_SECONDS)
    results = [future.result() for _, future in in_order(["a", "b"], lambda item: (both.wait(), item)[1],
                                                          workers=2, alone=lambda item: False)]
    assert results == ["a", "b"]


def test_results_come_in_the_order_given_whatever_order_they_finish_in():
    # "a" can only finish after "b" has started and "c" after "b" finished: their completion order
    # is b, a, c (or b, c, a), the order handed back is a, b, c
    b_started, b_done = threading.Event(), threading.Event()

    def work(item):
        if item == "a":
            assert b_started.wait(BARRIER_SECONDS)
        elif item == "b":
            b_started.set()
        elif item == "c":
            assert b_done.wait(BARRIER_SECONDS)
        if item == "b":
            b_done.set()
        return item * 2

    pairs = list(in_order(["a", "b", "c"], work, workers=3, alone=lambda item: False))
    assert [(item, future.result()) for item, future in pairs] == [("a", "aa"), ("b", "bb"), ("c", "cc")]


def test_an_item_that_must_run_alone_waits_for_those_before_and_holds_those_after():
    tracker = Tracker()
    items = [(f"x{i}", None) for i in range(6)] + [("ALONE", None)] + [(f"y{i}", None) for i in range(6)]
    results = _results(in_order(items, tracker, workers=4, alone=lambda item: item[0] == "ALONE"))
    assert [name for name, _ in results] == [name for name, _ in items]
    assert tracker.seen["ALONE"] == (1, 1)


def test_items_of_one_key_never_run_together():
    tracker = Tracker()
    items = [(f"n{i}", i % 2) for i in range(20)]
    results = _results(in_order(items, tracker, workers=4, alone=lambda item: False, key=lambda item: item[1]))
    assert results == [(f"n{i}", f"N{i}") for i in range(20)]
    assert tracker.overlapping_keys == []


def test_a_failure_is_handed_back_in_its_place():
    items = [("a", None), ("boom1", None), ("b", None)]
    results = _results(in_order(items, Tracker(), workers=2, alone=lambda item: False))
    assert results == [("a", "A"), ("boom1", "error boom1"), ("b", "B")]


def test_one_worker_runs_each_work_only_when_its_result_is_asked_for():
    ran = []
    pairs = in_order(["a", "b"], lambda item: ran.append(item) or item, workers=1)
    item, future = next(pairs)
    assert ran == []
    assert future.result() == "a" and ran == ["a"]


def test_what_work_says_side_by_side_is_said_in_the_order_of_the_items():
    heard, aside = [], SaidAside()
    say = aside.kept(heard.append)
    both = threading.Barrier(2, timeout=BARRIER_SECONDS)

    def work(item):
        if item == "b":
            say("from b")
            both.wait()
        else:
            both.wait()  # "a" speaks only after "b" has spoken
            say("from a")
        return item

    for _, future in in_order(["a", "b"], lambda item: aside.run(work, item), workers=2, alone=lambda item: False):
        result, said = future.result()
        aside.replay(said)
        heard.append(f"result {result}")
    assert heard == ["from a", "result a", "from b", "result b"]
    say("outside any work")
    assert heard[-1] == "outside any work"


def test_ahead_runs_on_the_calling_thread_and_only_what_it_leaves_goes_to_a_worker():
    caller, threads = threading.get_ident(), {}

    def ahead(item):
        threads[item] = threading.get_ident()
        if item.startswith("same"):
            return Ready(f"{item} unchanged")
        return lambda: (threads.__setitem__(item + " write", threading.get_ident()), f"{item} written")[1]

    items = ["same1", "new1", "same2", "new2", "same3"]
    pairs = list(in_order(items, lambda item: pytest.fail("work is not called for an item run ahead"),
                          workers=2, alone=lambda item: False, ahead=ahead))
    assert [(item, future.result()) for item, future in pairs] == [
        ("same1", "same1 unchanged"), ("new1", "new1 written"), ("same2", "same2 unchanged"),
        ("new2", "new2 written"), ("same3", "same3 unchanged")]
    assert all(threads[item] == caller for item in items)
    assert threads["new1 write"] != caller and threads["new2 write"] != caller


def test_ahead_keeps_no_more_writes_in_flight_than_the_workers():
    tracker = Tracker()
    items = [(f"w{i}", None) for i in range(12)]
    results = _results(in_order(items, tracker, workers=3, alone=lambda item: False,
                                ahead=lambda item: lambda: tracker(item)))
    assert results == [(f"w{i}", f"W{i}") for i in range(12)]
    assert max(started for started, _ in tracker.seen.values()) <= 3


def test_ahead_waits_for_an_item_of_the_same_key_before_planning_the_next():
    # the second object of one name is read and planned only after the first one's write finished
    order = []

    def write(name):
        threading.Event().wait(LINGER_SECONDS)  # widens the window a wrong order shows in
        order.append(f"write {name}")
        return name

    def ahead(item):
        order.append(f"plan {item[0]}")
        return lambda: write(item[0])

    items = [("a", "k"), ("b", None), ("c", "k")]
    results = [future.result() for _, future in in_order(
        items, lambda item: order.append(f"alone {item[0]}") or item[0], workers=2,
        alone=lambda item: False, key=lambda item: item[1], ahead=ahead)]
    assert results == ["a", "b", "c"]
    c_began = next(i for i, step in enumerate(order) if step in ("plan c", "alone c"))
    assert order.index("write a") < c_began


@pytest.mark.parametrize("api_version,kind,expected", [
    ("v1", "ConfigMap", True), ("apps/v1", "Deployment", True), ("v1", "Pod", True),
    ("v1", "Namespace", False), ("v1", "LimitRange", False), ("v1", "ServiceAccount", False),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", False), ("example.com/v1", "Widget", False),
])
def test_which_kinds_may_be_written_side_by_side(api_version, kind, expected):
    assert independent(api_version, kind) is expected


class _Transport:
    def __init__(self, embedded, verbosity=0):
        self.embedded, self.verbosity = embedded, verbosity


def test_in_process_and_logged_requests_go_one_at_a_time():
    assert workers_for(_Transport(embedded=True)) == 1
    assert workers_for(_Transport(embedded=False, verbosity=6)) == 1
    assert workers_for(_Transport(embedded=False)) > 1
    assert workers_for(None) == 1
