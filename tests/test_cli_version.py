import subprocess
import sys

from kubelite import __version__


def test_version_client_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "kubelite", "version", "--client"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("Client Version: v1.32.")
    assert first.endswith(__version__)


def test_unknown_command_fails_cleanly():
    out = subprocess.run([sys.executable, "-m", "kubelite", "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 1
    assert 'unknown command "frobnicate"' in out.stderr
    assert "Traceback" not in out.stderr
