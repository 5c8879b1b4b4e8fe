"""Record the kustomize examples of seed 004 part 2 as test cases.

The seed's shell snippets (`mkdir`, `cat <<EOF >file ... EOF`) are replayed in one
scratch directory, as a reader following the page would; at every
`kubectl kustomize DIR` the tree is copied to tests/data/kustomize/seed004/NN/input
and the installed kubectl's output is recorded next to it (the seed's own printed
output predates Kustomize v5). Run: python tests/kustomize/record_seed.py
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "kustomize", "seed004")
SEED = glob.glob("/work/shared/seeds/004_*.txt")[0]
HEREDOC = re.compile(r"^cat\s+<<\s*'?EOF'?\s*>\s*(\S+)\s*$")


def code_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            inside = not inside
            continue
        if inside:
            lines.append(line)
    return lines


def main() -> None:
    text = open(SEED, encoding="utf-8").read()
    start = text.index("2 - Declarative Management of Kubernetes Objects Using Kustomize")
    lines = code_lines(text[start:])
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    work = tempfile.mkdtemp()
    count = 0
    pending: list[str] = []

    def snapshot(target: str) -> None:
        nonlocal count
        count += 1
        case = os.path.join(OUT, f"{count:02d}")
        shutil.copytree(work, os.path.join(case, "input"))
        with open(os.path.join(case, "entry.txt"), "w") as f:
            f.write(target + "\n")
        run = subprocess.run(["/usr/bin/kubectl", "kustomize", target], cwd=work, capture_output=True, text=True)
        name = "expected.yaml" if run.returncode == 0 else "expected.err"
        with open(os.path.join(case, name), "w") as f:
            f.write(run.stdout if run.returncode == 0 else run.stderr)

    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = HEREDOC.match(line)
        if m:
            rel = os.path.normpath(m.group(1))
            is_kustomization = os.path.basename(rel) == "kustomization.yaml"
            if is_kustomization and pending:
                # the previous kustomization is complete: a reader would build it now
                snapshot(pending.pop())
                pending.clear()
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "EOF":
                body.append(lines[i])
                i += 1
            path = os.path.join(work, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("\n".join(body) + "\n")
            if is_kustomization:
                pending.append(os.path.dirname(rel) or ".")
        elif line.startswith("mkdir "):
            for d in line.split()[1:]:
                if not d.startswith("-"):
                    os.makedirs(os.path.join(work, d), exist_ok=True)
        i += 1
    for target in pending:
        snapshot(target)
    shutil.rmtree(work)
    print(f"recorded {count} examples")


if __name__ == "__main__":
    main()
