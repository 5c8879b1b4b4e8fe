"""The end of a command's process without the interpreter's teardown.

After main() returns, the interpreter waits for the threads that are not daemons, runs the atexit
functions, flushes stdout and stderr, and then takes itself apart: every module emptied, every
object freed one by one (~2 ms of an embedded `get ns`, whose registry, handlers and modules are
~100,000 objects) for memory the process gives back to the system as it ends anyway. end() does
the first three, in that order, and ends the process there (os._exit), as Instagram's servers do
(atexit.register(os._exit, 0)).

It returns instead, leaving the exit to the interpreter, when that exit has something to say or
to do that end() would skip: a flush of stdout or stderr failed (a closed pipe: the interpreter
reports it and exits with 120), or a profiler or tracer runs (cProfile, coverage, a debugger
print or save their results after the program returns).
"""
from __future__ import annotations

import os
import sys


def end(code: int) -> None:
    """End the process with `code` as the interpreter's exit would, minus the teardown; returns
    when the interpreter's own exit must run (see the module's docstring)."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return
    threading = sys.modules.get("threading")  # (not imported: no thread to wait for)
    if threading is not None:
        threading._shutdown()  # joins the threads that are not daemons, as the interpreter does first
    import atexit

    atexit._run_exitfuncs()  # (each runs once: the interpreter's exit would not run them again)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - the interpreter's exit reports it as it always has
            return
    os._exit(code)
