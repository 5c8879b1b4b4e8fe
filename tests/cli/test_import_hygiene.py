"""Import hygiene: a command loads only the modules it needs (DESIGN: "the CLI starts fast").

No timing asserts: each case runs the command in a fresh interpreter and checks which modules
ended up in sys.modules (the speed itself is measured by bench/cli.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# Runs kubelite's main() on argv, then reports the command's output and every loaded module.
PROBE = """
import contextlib, io, json, sys
from kubelite.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "stdout": out.getvalue(), "modules": sorted(sys.modules)}))
"""

# Never needed to print the client version.
VERSION_FORBIDDEN = ("httpx", "httpcore", "uvicorn", "yaml", "cryptography", "asyncio", "sqlite3", "kubelite.server",
                     "kubelite.client", "kubelite.manifest", "kubelite.schema", "kubelite.apply")
# Loaded only for -h or by other commands: the help texts, dataclasses with inspect, platform, shutil, typing.
SHORT_COMMAND_FORBIDDEN = ("kubelite.cli.help_texts", "kubelite.cli.help_texts_manage", "dataclasses", "inspect",
                           "platform", "shutil", "typing")
# Never needed to list namespaces from the embedded cluster: serving sockets, TLS certificates,
# YAML, file readers, the apply engine, kustomize, httpx's optional command-line tool; nor
# importlib.resources (with tempfile, shutil and zipfile) for the package's data files, time
# zones (CronJobs with one) or shell words (pod logs); nor the authorizer, which the in-process
# door consults only for an impersonated user, nor csv (a --token-auth-file's reader), nor locale
# (gettext's, for translations of argparse's texts, which Python does not ship), nor the label
# selector parser without a selector, the patch decoders, /metrics' number format, the printers of
# workloads (a Table loads its resource's printers), the C pickler (jsoncopy's, for copies: a list
# copies nothing).
GET_EMBEDDED_FORBIDDEN = ("uvicorn", "cryptography", "yaml", "click", "pygments", "kubelite.manifest.documents",
                          "kubelite.manifest.sources", "kubelite.manifest.yamlfmt", "kubelite.apply",
                          "kubelite.kustomize", "kubelite.imperative", "kubelite.server.tls", "kubelite.server.serve",
                          "importlib.resources", "tempfile", "shutil", "zipfile", "zoneinfo", "shlex",
                          "kubelite.server.auth.rbac", "kubelite.server.auth.attributes",
                          "kubelite.server.auth.escalation", "csv", "locale", "kubelite.labels",
                          "kubelite.server.patching", "kubelite.manifest._gonum",
                          "kubelite.server.printers.workloads", "_pickle")


def probe(tmp_path, *argv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(tmp_path), KUBELITE_HOME=str(tmp_path / "kubelite"))
    r = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def loaded(modules: list[str], forbidden: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden)]


def test_version_client_loads_no_client_or_server(tmp_path):
    result = probe(tmp_path, "version", "--client")
    assert result["code"] == 0 and "kubelite" in result["stdout"]
    assert loaded(result["modules"], VERSION_FORBIDDEN) == []


def test_version_client_loads_no_help_texts_nor_dataclasses(tmp_path):
    result = probe(tmp_path, "version", "--client")
    assert loaded(result["modules"], SHORT_COMMAND_FORBIDDEN) == []


def test_create_dry_run_loads_no_help_texts_nor_dataclasses(tmp_path):
    result = probe(tmp_path, "create", "configmap", "c", "--from-literal=a=b", "--dry-run=client", "-o", "name")
    assert result["code"] == 0 and result["stdout"] == "configmap/c\n"
    # (the built-in schema it reads brings typing, and shutil through importlib.resources)
    assert loaded(result["modules"], SHORT_COMMAND_FORBIDDEN[:5]) == []


def test_get_namespaces_embedded_loads_no_serving_or_yaml(tmp_path):
    # The first command on a new embedded cluster makes its CA (the kube-root-ca.crt that every
    # namespace publishes), which needs the crypto library; the commands after it do not.
    assert probe(tmp_path, "get", "ns")["code"] == 0
    result = probe(tmp_path, "get", "ns")
    assert result["code"] == 0
    assert result["stdout"].split()[:6] == ["NAME", "STATUS", "AGE", "default", "Active", result["stdout"].split()[5]]
    assert "kube-system" in result["stdout"]
    assert loaded(result["modules"], GET_EMBEDDED_FORBIDDEN) == []


# Never needed by a read-only embedded command when nothing is due since the last command's settle
# (Cluster.catch_up): the controllers, asyncio (the in-process door drives a short request without
# an event loop), what only writes use (admission, managedFields, webhooks with ssl), dataclasses
# with inspect, typing, logging.
QUIET_READ_FORBIDDEN = ("kubelite.server.controllers", "asyncio", "kubelite.server.admit", "kubelite.server.admission",
                        "kubelite.server.fieldmanager", "kubelite.server.webhooks", "ssl", "dataclasses", "inspect",
                        "typing", "logging", "uuid")


def test_a_read_after_a_settle_loads_neither_controllers_nor_asyncio(tmp_path):
    import time

    assert probe(tmp_path, "create", "configmap", "c", "--from-literal=a=b")["code"] == 0
    settled = time.monotonic()
    result = probe(tmp_path, "get", "configmaps", "c", "-o", "name")
    assert result == {**result, "code": 0, "stdout": "configmap/c\n"}
    if time.monotonic() - settled > 8:
        # The simulated kubelet renews its node's Lease every 10 s: so slow a machine that the
        # renewal came due meanwhile runs the controllers, rightly.
        pytest.skip("the node's Lease renewal may have come due between the two commands")
    assert loaded(result["modules"], QUIET_READ_FORBIDDEN) == []


def test_a_write_without_webhooks_loads_no_webhook_caller_nor_ssl(tmp_path):
    assert probe(tmp_path, "get", "ns")["code"] == 0
    result = probe(tmp_path, "create", "configmap", "c", "--from-literal=a=b")
    assert result["code"] == 0 and result["stdout"] == "configmap/c created\n"
    assert "kubelite.server.webhooks.stage" in result["modules"]  # (the write looked for webhooks)
    assert loaded(result["modules"], ("kubelite.server.webhooks.caller", "kubelite.server.webhooks.review", "ssl",
                                      "asyncio")) == []


def test_a_write_waking_the_controllers_loads_neither_logging_nor_uuid(tmp_path):
    """A first write wakes the controllers (leader election, the simulated kubelet, the object's
    uid): nothing is logged and nobody configured logging, uids and the leader's identity are
    random text, so logging, uuid (with platform) and socket stay out."""
    assert probe(tmp_path, "get", "ns")["code"] == 0
    result = probe(tmp_path, "create", "configmap", "c", "--from-literal=a=b")
    assert result["code"] == 0 and result["stdout"] == "configmap/c created\n"
    assert "kubelite.server.controllers.manager" in result["modules"]  # (the controllers did wake)
    assert loaded(result["modules"], ("logging", "uuid", "platform", "socket")) == []


def test_controllers_woken_by_a_read_load_neither_dataclasses_nor_typing_nor_fractions(tmp_path):
    """A command that finds the controllers due (here: the store moved since their last settle,
    as after another process's write; every command more than 10 s after the last finds the
    simulated kubelet's Lease renewal due) imports and settles them all: their modules declare
    kubelite.record Records and keep typing for annotations, so dataclasses (with inspect, ast,
    dis) and typing stay out; fractions (with decimal) waits for a quantity to read."""
    import subprocess

    assert probe(tmp_path, "get", "ns")["code"] == 0
    moved = ("from kubelite.server.storage.sqlite import SQLiteStore; import sys; "
             "s = SQLiteStore(sys.argv[1]); s.set_marks(controllers_revision=0); s.close()")
    subprocess.run([sys.executable, "-c", moved, str(tmp_path / "kubelite" / "state.db")], check=True, timeout=60)
    result = probe(tmp_path, "get", "ns")
    assert result["code"] == 0 and "kube-system" in result["stdout"]
    assert "kubelite.server.controllers.manager" in result["modules"]  # (the controllers did wake)
    assert loaded(result["modules"], ("dataclasses", "inspect", "typing", "fractions", "decimal")) == []


def test_get_yaml_still_loads_the_yaml_printer(tmp_path):
    """The guard above is not vacuous: the modules it forbids do load when a command needs them."""
    result = probe(tmp_path, "get", "ns", "default", "-o", "yaml")
    assert result["code"] == 0 and "kind: Namespace" in result["stdout"]
    assert "kubelite.manifest.yamlfmt" in result["modules"]


@pytest.mark.parametrize("name", ["to_yaml", "to_json", "read_sources", "read_text", "as_list", "Manifest",
                                  "ManifestError", "NoObjectsError", "fetch_url"])
def test_manifest_exports_load_on_first_use(name):
    import kubelite.manifest

    assert callable(getattr(kubelite.manifest, name))
    assert name in dir(kubelite.manifest)


def test_manifest_unknown_name_is_an_attribute_error():
    import kubelite.manifest

    with pytest.raises(AttributeError):
        kubelite.manifest.no_such_name  # noqa: B018
