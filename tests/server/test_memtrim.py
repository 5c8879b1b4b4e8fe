"""The heap trimmer of `kubelite serve` (server/memtrim.py): when it gives memory back.

The resident size and the trim are stand-ins, so each tick's decision is checked exactly: trim
while a load keeps growing, once more when the load is over, and never in a loop over memory
that is in use.
"""
from __future__ import annotations

from kubelite.server.memtrim import Trimmer, resident_bytes

MB = 1024 * 1024


class FakeHeap:
    """A process whose resident size the test sets; a trim gives back what is free."""

    def __init__(self, size: int):
        self.size = size
        self.free = 0
        self.trims = 0

    def resident(self) -> int:
        return self.size

    def trim(self, pad: int) -> int:
        assert pad == 0
        self.trims += 1
        self.size -= self.free
        self.free = 0
        return 1


def trimmer(heap: FakeHeap) -> Trimmer:
    return Trimmer(growth=16 * MB, settled=4 * MB, trim=heap.trim, resident=heap.resident)


def test_a_steady_server_is_never_trimmed():
    heap = FakeHeap(60 * MB)
    t = trimmer(heap)
    assert [t.tick() for _ in range(5)] == [False] * 5
    heap.size += 3 * MB  # below both thresholds
    assert [t.tick() for _ in range(3)] == [False] * 3
    assert heap.trims == 0


def test_growth_during_a_load_is_trimmed_and_the_end_of_the_load_once_more():
    heap = FakeHeap(60 * MB)
    t = trimmer(heap)
    t.tick()
    heap.size, heap.free = 90 * MB, 10 * MB  # a load: 30 MB more, a third of it free
    assert t.tick() is True
    assert heap.size == 80 * MB
    heap.size += 2 * MB  # still growing a little: no trim
    assert t.tick() is False
    heap.size -= 1 * MB  # the load is over: it stopped growing, 21 MB above where it started
    heap.free = 15 * MB
    assert t.tick() is True
    assert heap.size == 66 * MB
    assert [t.tick() for _ in range(3)] == [False] * 3  # nothing new: no more trims
    assert heap.trims == 2


def test_memory_in_use_is_not_trimmed_in_a_loop():
    heap = FakeHeap(60 * MB)
    t = trimmer(heap)
    t.tick()
    heap.size = 100 * MB  # grown, and all of it in use (nothing free)
    assert t.tick() is True
    # the load's end is tried once (it stopped growing above where the last one left it), and
    # then the size in use is the new mark
    assert [t.tick() for _ in range(6)] == [True] + [False] * 5
    assert heap.trims == 2
    assert heap.size == 100 * MB


def test_a_lower_size_becomes_the_mark():
    heap = FakeHeap(80 * MB)
    t = trimmer(heap)
    t.tick()
    heap.size = 60 * MB  # something was given back without a trim
    assert t.tick() is False
    heap.size = 66 * MB  # 6 MB above the new mark and not growing on the next look
    assert t.tick() is False  # growing from the last look
    assert t.tick() is True
    assert heap.trims == 1


def test_the_resident_size_is_read_from_proc():
    size = resident_bytes()
    assert size is not None and size > 1 * MB
