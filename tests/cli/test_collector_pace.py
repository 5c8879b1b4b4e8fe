"""The cyclic garbage collector's pace in a kubelite process (cli.main._collect_later): a command
started as its own process lets the collector wait, so a short command ends before the first
collection, and leaves what it made out of the interpreter's shutdown collections (gcpace.none_at_exit);
a caller's main([...]) and `kubelite serve` keep the interpreter's default.
No timing asserts: bench/cli.py measures the speed."""
from __future__ import annotations

import json
import os
import subprocess
import sys

# Runs main() as the script does (argv from sys.argv) or as a caller does (argv given), counting
# the collections it runs; prints the collector's threshold after and that count.
PROBE = """
import contextlib, gc, io, json, sys
from kubelite import quickexit
from kubelite.cli.main import main
quickexit.end = lambda code: None  # main() returns, for this probe to report after it
gc.collect()  # what the interpreter's own start left, not the command's
counted = []
gc.callbacks.append(lambda phase, info: phase == "stop" and counted.append(info["generation"]))
as_caller = sys.argv[1] == "caller"
sys.argv = ["kubelite"] + sys.argv[2:]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        code = main(sys.argv[1:]) if as_caller else main()
    except SystemExit as exit:
        code = exit.code
print(json.dumps({"code": code, "stdout": out.getvalue(), "threshold": gc.get_threshold(), "collections": counted,
                  "frozen": gc.get_freeze_count()}))
"""


def probe(tmp_path, how: str, *argv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kubelite"))
    r = subprocess.run([sys.executable, "-c", PROBE, how, *argv], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def test_a_command_in_its_own_process_ends_before_the_first_collection(tmp_path):
    probe(tmp_path, "own", "get", "ns")  # the first command builds the embedded cluster's store
    result = probe(tmp_path, "own", "get", "ns")
    assert result["code"] == 0 and "kube-system" in result["stdout"]
    assert result["threshold"][0] == 100_000 and result["collections"] == []


def test_a_command_in_its_own_process_leaves_its_objects_out_of_the_shutdown_collections(tmp_path):
    result = probe(tmp_path, "own", "version", "--client")
    assert result["code"] == 0 and result["frozen"] > 1_000


def test_an_ending_command_still_writes_all_it_printed_and_its_exit_code(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kubelite"))
    r = subprocess.run([sys.executable, "-m", "kubelite", "create", "configmap", "c", "--from-literal=a=b",
                        "--dry-run=client", "-o", "yaml"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.endswith("  name: c\n")
    r = subprocess.run([sys.executable, "-m", "kubelite", "get", "nosuchtype"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 1 and r.stderr == 'error: the server doesn\'t have a resource type "nosuchtype"\n'


def test_a_callers_main_keeps_the_default_pace(tmp_path):
    default = gc_default()
    result = probe(tmp_path, "caller", "version", "--client")
    assert result["code"] == 0 and result["threshold"] == default and result["frozen"] == 0


def test_serve_keeps_the_default_pace(tmp_path):
    result = probe(tmp_path, "own", "serve", "--help")
    assert result["code"] == 0 and "--port" in result["stdout"] and result["threshold"] == gc_default()


def gc_default() -> list[int]:
    r = subprocess.run([sys.executable, "-c", "import gc, json; print(json.dumps(gc.get_threshold()))"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)
