"""kubelite.server.warmup: what a served API imports in the background once it listens."""
from __future__ import annotations

import subprocess
import sys

from kubelite.server import warmup


def test_every_module_named_exists_and_imports_in_a_fresh_interpreter():
    # a renamed or removed module would otherwise be skipped quietly by the warm-up thread
    code = ("import importlib, sys\n"
            "from kubelite.server.warmup import MODULES\n"
            "for name in MODULES:\n"
            "    importlib.import_module(name)\n"
            "print(sum(name in sys.modules for name in MODULES))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert int(out) == len(warmup.MODULES)


def test_the_warm_up_imports_them_on_its_own_thread():
    code = ("import sys, threading\n"
            "from kubelite.server import warmup\n"
            "before = [name for name in warmup.MODULES if name in sys.modules]\n"
            "warmup.start()\n"
            "for thread in threading.enumerate():\n"
            "    if thread.name == 'kubelite-warm-up':\n"
            "        thread.join(120)\n"
            "print(len(before), sum(name in sys.modules for name in warmup.MODULES))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True).stdout
    before, after = map(int, out.split())
    assert before < len(warmup.MODULES) and after == len(warmup.MODULES)
