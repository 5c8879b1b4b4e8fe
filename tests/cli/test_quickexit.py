"""The end of a command's process (kubelite.quickexit): what the interpreter's exit does before
its teardown still happens (atexit functions, stdout and stderr flushed, the exit code), and the
interpreter's own exit runs when it has something to report or a profiler waits for its turn.
Each case runs in a process of its own: end() ends the process it runs in."""
from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import atexit, sys
from kubelite import quickexit
atexit.register(lambda: print("atexit ran"))
if "profiled" in sys.argv:
    sys.setprofile(lambda *args: None)
sys.stdout.write("printed, not flushed yet\\n")
if "plain" not in sys.argv:
    quickexit.end(3)  # as kubelite's main() ends
if "profiled" in sys.argv:
    sys.setprofile(None)
    print("the interpreter's exit")
sys.exit(3)
"""


def run(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=60)


def test_the_process_ends_with_its_output_flushed_atexit_run_and_the_code():
    r = run()
    assert (r.returncode, r.stdout, r.stderr) == (3, "printed, not flushed yet\natexit ran\n", "")


def test_under_a_profiler_the_interpreter_ends_the_process():
    r = run("profiled")
    assert (r.returncode, r.stdout) == (3, "printed, not flushed yet\nthe interpreter's exit\natexit ran\n")


def test_a_failed_write_is_reported_as_the_interpreter_reports_it_without_end():
    read, write = os.pipe()
    os.close(read)  # stdout a pipe nobody reads: writing or flushing it fails
    try:
        ended, plain = run(stdout=write), run("plain", stdout=write)
    finally:
        os.close(write)
    assert ended.returncode == plain.returncode != 3
    assert _no_addresses(ended.stderr) == _no_addresses(plain.stderr) and "BrokenPipeError" in ended.stderr


def _no_addresses(text: str) -> str:
    import re

    return re.sub(r"0x[0-9a-f]+", "0x", text)
