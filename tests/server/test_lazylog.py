"""kubelite.lazylog.LazyLogger: a logger's stand-in that imports logging at its first use, and
whose quiet form (a library's logger with a null handler) drops messages nobody could see
without importing it. Each case runs in a fresh interpreter, where logging is not imported yet."""
from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from kubelite.lazylog import LazyLogger
{setup}
LazyLogger("probe.quiet", quiet=True).warning("quiet %s", "warning")
LazyLogger("probe.loud").warning("loud %s", "warning")
print(json.dumps({{"logging": "logging" in sys.modules}}))
"""


def _run(setup: str = "") -> tuple[dict, str]:
    r = subprocess.run([sys.executable, "-c", PROBE.format(setup=setup)], capture_output=True, text=True,
                       timeout=60, check=True)
    return json.loads(r.stdout.splitlines()[-1]), r.stderr


def test_a_quiet_logger_drops_without_importing_logging_and_a_loud_one_speaks_as_logging_does():
    quiet_only = PROBE.replace('LazyLogger("probe.loud").warning("loud %s", "warning")\n', "")
    r = subprocess.run([sys.executable, "-c", quiet_only.format(setup="")], capture_output=True, text=True,
                       timeout=60, check=True)
    assert json.loads(r.stdout) == {"logging": False} and r.stderr == ""
    state, stderr = _run()
    # the loud logger's warning goes where logging.getLogger("probe.loud").warning sends it
    # (the last-resort handler); the quiet one's is still dropped
    assert state == {"logging": True} and stderr == "loud warning\n"


def test_where_logging_is_configured_both_reach_its_handlers():
    setup = "import logging\nlogging.basicConfig(format='%(name)s %(message)s')"
    state, stderr = _run(setup)
    assert state == {"logging": True}
    assert stderr == "probe.quiet quiet warning\nprobe.loud loud warning\n"
