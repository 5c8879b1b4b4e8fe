"""`get` with no resource type: kubectl's usage text, without an `error: ` prefix on its first line."""
import os
import shutil
import subprocess
import sys

import pytest

KUBECTL = "/usr/bin/kubectl"


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
def test_get_without_a_type_prints_kubectls_text(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "KUBELITE_HOME": str(tmp_path / "k"), "KUBECONFIG": "/dev/null"}
    want = subprocess.run([KUBECTL, "get"], capture_output=True, text=True, env=env)
    env.pop("KUBECONFIG")
    got = subprocess.run([sys.executable, "-m", "kubelite", "get"], capture_output=True, text=True, env=env)
    assert (got.returncode, got.stdout) == (want.returncode, want.stdout) == (1, "")
    # kubelite names itself where kubectl does
    assert got.stderr == want.stderr.replace("kubectl", "kubelite")
