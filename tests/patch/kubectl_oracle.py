"""Run `kubectl patch --local` on many (object, patch) pairs, in parallel, for differential tests."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

KUBECTL = pathlib.Path("/usr/bin/kubectl")


@dataclass
class Outcome:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def object(self) -> object:
        return json.loads(self.stdout)


def run_patches(pairs: list[tuple[dict, str]], patch_type: str) -> list[Outcome]:
    """Patch each object with its patch text (`--type patch_type`); outcomes in order."""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for index, (obj, _) in enumerate(pairs):
            path = pathlib.Path(tmp) / f"object-{index}.json"
            path.write_text(json.dumps(obj))
            files.append(path)
        env = dict(os.environ, KUBECONFIG=os.devnull)

        def run(index: int) -> Outcome:
            done = subprocess.run(
                [str(KUBECTL), "patch", "--local", "-f", str(files[index]), "-p", pairs[index][1],
                 "--type", patch_type, "-o", "json"],
                capture_output=True, text=True, env=env, timeout=60)
            return Outcome(done.returncode, done.stdout, done.stderr)

        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(run, range(len(pairs))))
