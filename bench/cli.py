"""CLI benchmark: wall time of kubelite next to kubectl, in one run.

  kubelite version --client        vs  kubectl version --client
  kubelite get ns   (embedded)
  kubelite get ns   (kubelite serve) vs  kubectl get ns (same server)

Usage: python bench/cli.py [--smoke] [--runs N]. Prints the median of N runs and the ratios.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

KUBELITE = [sys.executable, "-m", "kubelite"]


def _time(argv: list[str], env: dict, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run(argv, env=env, capture_output=True)
        samples.append(time.perf_counter() - start)
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {r.stderr.decode()}")
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="one run each (CI)")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    kubectl = shutil.which("kubectl")
    from test_serve_support import Served

    with tempfile.TemporaryDirectory(prefix="kubelite-bench-cli-") as tmp:
        base = pathlib.Path(tmp)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "PYTHONDONTWRITEBYTECODE")}
        # As installed: byte code cached (in a private prefix, so the source tree stays untouched).
        env.update(HOME=str(base / "home"), KUBELITE_HOME=str(base / "embedded"),
                   PYTHONPYCACHEPREFIX=str(base / "pycache"))
        (base / "home").mkdir()
        server = Served(base / "served", base / "kubeconfig").start()
        try:
            kc = ["--kubeconfig", str(base / "kubeconfig")]
            # warm-up: creates the embedded store and the discovery caches of both tools
            subprocess.run(KUBELITE + ["get", "ns"], env=env, capture_output=True)
            subprocess.run(KUBELITE + ["version", "--client"], env=env, capture_output=True)
            subprocess.run(KUBELITE + kc + ["get", "ns"], env=env, capture_output=True)
            rows = [("kubelite version --client", _time(KUBELITE + ["version", "--client"], env, runs)),
                    ("kubelite get ns (embedded)", _time(KUBELITE + ["get", "ns"], env, runs)),
                    ("kubelite get ns (serve)", _time(KUBELITE + kc + ["get", "ns"], env, runs))]
            if kubectl:
                kk = [kubectl, "--cache-dir", str(base / "kcache")] + kc
                subprocess.run(kk + ["get", "ns"], env=env, capture_output=True)
                rows += [("kubectl version --client", _time([kubectl, "version", "--client"], env, runs)),
                         ("kubectl get ns (serve)", _time(kk + ["get", "ns"], env, runs))]
        finally:
            server.stop()
    times = dict(rows)
    print(f"{'command':<30} {'median ms':>10}   (runs={runs})")
    for label, seconds in rows:
        print(f"{label:<30} {seconds * 1000:10.1f}")
    if kubectl:
        print(f"ratio version --client kubelite/kubectl: "
              f"{times['kubelite version --client'] / times['kubectl version --client']:.2f}")
        print(f"ratio get ns (serve) kubelite/kubectl:   "
              f"{times['kubelite get ns (serve)'] / times['kubectl get ns (serve)']:.2f}")
        print(f"ratio get ns embedded/kubectl (serve):   "
              f"{times['kubelite get ns (embedded)'] / times['kubectl get ns (serve)']:.2f}")


if __name__ == "__main__":
    main()
