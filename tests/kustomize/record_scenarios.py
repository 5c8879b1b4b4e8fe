"""Record scenarios.py's trees with the installed kubectl.

For each scenario: tests/data/kustomize/scenarios/<name>/input/ holds the tree,
entry.txt and flags.txt how to build it, and expected.yaml (stdout) or expected.err
(klog's `"command failed" err=...` text, the case directory as <CASE>).
Run: python tests/kustomize/record_scenarios.py
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kustomize.scenarios import SCENARIOS  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "kustomize", "scenarios")
KLOG = re.compile(r"^E\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ \S+:\d+\] ", re.M)


def record(name: str, spec: dict) -> None:
    case = os.path.realpath(os.path.join(OUT, name))
    shutil.rmtree(case, ignore_errors=True)
    for rel, text in spec["files"].items():
        path = os.path.join(case, "input", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.join(case, "input"), exist_ok=True)
    entry, flags = spec.get("entry", "."), spec.get("flags", [])
    with open(os.path.join(case, "entry.txt"), "w") as f:
        f.write(entry + "\n")
    with open(os.path.join(case, "flags.txt"), "w") as f:
        f.write("".join(flag + "\n" for flag in flags))
    target = os.path.normpath(os.path.join("input", entry))
    run = subprocess.run(["/usr/bin/kubectl", "kustomize", target, *flags], cwd=case, capture_output=True, text=True)
    if run.returncode == 0:
        with open(os.path.join(case, "expected.yaml"), "w") as f:
            f.write(run.stdout)
    else:
        with open(os.path.join(case, "expected.err"), "w") as f:
            # Go prints a generator's address in one message; it varies from run to run
            text = re.sub(r"&\{0xc[0-9a-f]+ ", "&{0xc000000000 ", KLOG.sub("", run.stderr))
            f.write(text.replace(case, "<CASE>"))


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name, spec in SCENARIOS.items():
        record(name, spec)
    print(f"recorded {len(SCENARIOS)} scenarios")


if __name__ == "__main__":
    main()
