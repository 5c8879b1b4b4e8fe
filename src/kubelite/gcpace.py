"""The cyclic garbage collector's pace while work creates many objects that live on and few cycles
(a command's start, a controllers' settle): it waits for YOUNG new objects between passes instead
of the interpreter's 700, so that it does not walk, again and again, what was just made to stay."""
from __future__ import annotations

import gc

YOUNG = 100_000


def wait_longer() -> tuple[int, int, int] | None:
    """Raise the young generation's threshold to YOUNG; the thresholds before, or None when it
    was that high already."""
    before = gc.get_threshold()
    if before[0] >= YOUNG:
        return None
    gc.set_threshold(YOUNG, *before[1:])
    return before


def restore(before: tuple[int, int, int] | None) -> None:
    """Put back what wait_longer() raised, unless someone has set other thresholds meanwhile."""
    if before is not None and gc.get_threshold()[0] == YOUNG:
        gc.set_threshold(*before)


def none_at_exit() -> None:
    """For a process about to end: the interpreter's shutdown collections skip every object that
    exists now (gc.freeze). They walked all of them (modules, classes, functions, an embedded
    cluster's registry: ~6 ms of an embedded `get ns`, a tenth of it) to free the few cycles among
    them, whose memory the process gives back anyway. The rest of the shutdown is as at any exit:
    atexit functions run, objects are freed when their last reference goes (a file flushed and
    closed with it)."""
    gc.freeze()
