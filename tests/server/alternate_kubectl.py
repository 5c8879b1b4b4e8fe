"""Run /usr/bin/kubectl against one of several servers in turn: each call takes the next one.

    python alternate_kubectl.py STATE CACHE_DIR KUBECONFIG [KUBECONFIG...] -- KUBECTL ARGS...

STATE is a file holding how many calls were made so far; a scenario replayed through this script
alternates between servers at every step (test_several_servers_scenarios.py).
"""
from __future__ import annotations

import os
import pathlib
import sys

KUBECTL = "/usr/bin/kubectl"


def main(argv: list[str]) -> None:
    split = argv.index("--")
    state, cache, *kubeconfigs = argv[:split]
    counter = pathlib.Path(state)
    calls = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(calls + 1))
    kubeconfig = kubeconfigs[calls % len(kubeconfigs)]
    os.execv(KUBECTL, [KUBECTL, "--kubeconfig", kubeconfig, "--cache-dir", cache, *argv[split + 1:]])


if __name__ == "__main__":
    main(sys.argv[1:])
