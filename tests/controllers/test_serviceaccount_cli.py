"""`kubelite delete` of an object a controller recreates at once (the default ServiceAccount, as
in the serviceaccount-defaults recording) returns as kubectl does: the recreated namesake has
another uid, so the deleted object is gone."""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "cli"))

from cli_support import CLI, kubelite_argv  # noqa: E402


def test_deleting_the_default_serviceaccount_returns_and_it_comes_back(tmp_path):
    cli = CLI(tmp_path, kubelite_argv())
    assert cli.run("create", "namespace", "pub-serviceaccount-defaults").returncode == 0
    before = cli.run("get", "sa", "default", "-n", "pub-serviceaccount-defaults", "-o", "jsonpath={.metadata.uid}")
    assert before.returncode == 0 and before.stdout
    deleted = cli.run("delete", "serviceaccount", "-n", "pub-serviceaccount-defaults", "default", "--timeout=30s")
    assert (deleted.returncode, deleted.stdout, deleted.stderr) == (0, 'serviceaccount "default" deleted\n', "")
    after = cli.run("get", "sa", "default", "-n", "pub-serviceaccount-defaults", "-o", "jsonpath={.metadata.uid}")
    assert after.returncode == 0 and after.stdout and after.stdout != before.stdout
    cm = cli.run("get", "configmap", "kube-root-ca.crt", "-n", "pub-serviceaccount-defaults", "-o",
                 "jsonpath={.metadata.annotations.kubernetes\\.io/description}")
    assert cm.stdout.startswith("Contains a CA bundle that can be used to verify the kube-apiserver")
