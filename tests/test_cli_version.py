import subprocess
import sys


def test_version_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "kubelite", "version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "kubelite version: v" in out.stdout


def test_unknown_command_fails_cleanly():
    out = subprocess.run([sys.executable, "-m", "kubelite", "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 1
    assert 'unknown command "frobnicate"' in out.stderr
    assert "Traceback" not in out.stderr
