"""Replaying scenarios (tests/data/scenarios) in kubelite's three modes and comparing steps.

A scenario is the shared format of tests/data/scenarios/scenario.py: a list of kubectl-shaped
command lines, each with a `check` (exact/object/diff/rc/none). Our own scenarios may add
`stdin: "@N"` to a step, which feeds it the stdout of step N of the same run: the seeds'
`create ... -o yaml | set ... --local -f - | create -f -` pipelines.

Modes (each gets a fresh HOME without ~/.kube/config, and a fresh cluster):
  embedded        python -m kubelite                              (KUBELITE_HOME=tmp)
  served-kubelite python -m kubelite --kubeconfig F               against `kubelite serve`
  served-kubectl  /usr/bin/kubectl --kubeconfig F --cache-dir D   against `kubelite serve`

Usable by hand:  python tests/scenarios/scenario_modes.py SCENARIO.yaml [EXPECTED.json]
prints every step that differs (from the recording, or else from the served-kubectl run).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import importlib.util
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

HERE = pathlib.Path(__file__).parent
DATA = HERE.parent / "data" / "scenarios"
OWN = DATA / "own"
KUBECTL = "/usr/bin/kubectl"
MODES = ("embedded", "served-kubelite", "served-kubectl")

sys.path.insert(0, str(HERE.parent / "server"))


def _load_runner():
    spec = importlib.util.spec_from_file_location("scenario_runner", DATA / "scenario.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the shared runner's comparison (same/scrub/norm_text/norm_diff) is the one every mode is judged by
runner = _load_runner()


def recorded_scenarios() -> list[pathlib.Path]:
    return sorted(p for p in DATA.glob("*.yaml") if (DATA / "expected" / f"{p.stem}.json").exists())


def own_scenarios() -> list[pathlib.Path]:
    return sorted(OWN.glob("*.yaml"))


def load(path: pathlib.Path) -> dict:
    return yaml.safe_load(path.read_text())


def replay(path: pathlib.Path, argv: list[str], env: dict) -> dict:
    """Run every step as scenario.py's `run` does; the same result shape."""
    scen = load(path)
    files = str(path.parent.resolve() / "files")
    steps = []
    for i, step in enumerate(scen["steps"]):
        cmd = argv + shlex.split(step["run"].replace("{files}", files))
        stdin = step.get("stdin")
        if stdin is not None:
            stdin = steps[int(str(stdin).lstrip("@"))]["raw_stdout"]
        try:
            p = subprocess.run(cmd, input=stdin or "", capture_output=True, text=True, timeout=60, env=env)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = 124, "", "timeout"
        steps.append({"i": i, "run": step["run"], "check": step.get("check", "exact"), "rc": rc,
                      "stdout": out.replace(files, "{files}"), "stderr": err.replace(files, "{files}"),
                      "raw_stdout": out})
    for step in steps:
        del step["raw_stdout"]
    return {"scenario": scen["name"], "cli": " ".join(argv), "steps": steps}


def _base_env(home: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBELITE_HOME")}
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    return env


@contextlib.contextmanager
def mode_cli(mode: str, tmp: pathlib.Path):
    """(argv prefix, env) for one mode; a served mode's server is always stopped on exit."""
    env = _base_env(tmp / "home")
    kubelite = [sys.executable, "-m", "kubelite"]
    if mode == "embedded":
        env["KUBELITE_HOME"] = str(tmp / "kubelite-home")
        yield kubelite, env
        return
    from test_serve_support import Served

    server = Served(tmp / "serve-data", tmp / "kubeconfig").start()
    try:
        if mode == "served-kubelite":
            yield kubelite + ["--kubeconfig", str(server.kubeconfig)], env
        elif mode == "served-kubectl":
            yield [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(tmp / "kube-cache")], env
        else:
            raise ValueError(f"unknown mode {mode!r}")
    finally:
        server.stop()


def run_mode(path: pathlib.Path, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"scenario-{mode}-") as tmp:
        with mode_cli(mode, pathlib.Path(tmp)) as (argv, env):
            return replay(path, argv, env)


def run_modes(path: pathlib.Path, modes) -> dict[str, dict]:
    """Each mode on its own fresh cluster, concurrently (they are subprocess-bound)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(modes)) as pool:
        futures = {mode: pool.submit(run_mode, path, mode) for mode in modes}
        return {mode: f.result() for mode, f in futures.items()}


# klog's header carries the wall time and the process id: `W1122 00:38:50.163375    3742 prune.go:71] `
_KLOG_HEADER = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ ", re.M)


def _without_klog_clock(step: dict) -> dict:
    return dict(step, stderr=_KLOG_HEADER.sub(r"\1MMDD hh:mm:ss.uuuuuu PID ", step["stderr"]))


def same_as_recording(expected: dict, got: dict) -> tuple[bool, str]:
    return runner.same(expected, got)


def same_as_kubectl(kubectl_step: dict, got: dict) -> tuple[bool, str]:
    """scenario.py's comparison of two live runs; only klog's clock and pid are set aside."""
    return runner.same(_without_klog_clock(kubectl_step), _without_klog_clock(got))


def explain(want: dict, got: dict, limit: int = 3000) -> str:
    return (f"step {want['i']}: {want['run']} [{want['check']}]\n"
            f"--- want rc={want['rc']}\n{(want['stdout'] + want['stderr'])[:limit]}\n"
            f"--- got rc={got['rc']}\n{(got['stdout'] + got['stderr'])[:limit]}")


def _main(argv: list[str]) -> int:
    path = pathlib.Path(argv[0]).resolve()
    expected = None
    if len(argv) > 1:
        import json

        expected = json.loads(pathlib.Path(argv[1]).read_text())
    modes = MODES
    runs = run_modes(path, modes)
    reference = expected or runs["served-kubectl"]
    compare = same_as_recording if expected else same_as_kubectl
    bad = 0
    for mode in modes:
        if mode == "served-kubectl" and not expected:
            continue
        ok = 0
        for want, got in zip(reference["steps"], runs[mode]["steps"]):
            good, why = compare(want, got)
            ok += good
            if not good:
                bad += 1
                print(f"== {mode}: {why}\n{explain(want, got)}\n")
        print(f"{path.stem} {mode}: {ok}/{len(reference['steps'])} passed")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
