"""`import kubelite`: the documented names, typed and lazy (the CLI's start-up stays light)."""
from __future__ import annotations

import json
import pydoc
import subprocess
import sys

import kubelite

NAMES = ["Cluster", "Client", "connect", "kustomize", "Applied", "Snapshot", "KubeliteError", "APIError",
         "NotFound", "AlreadyExists", "Conflict", "Invalid", "BadRequest", "Forbidden", "Unauthorized",
         "ApplyError", "WaitTimeout", "NotSupported", "ManifestError"]


def test_every_public_name_resolves_and_is_listed():
    assert set(NAMES) <= set(kubelite.__all__)
    for name in NAMES:
        assert getattr(kubelite, name) is not None, name
    assert issubclass(kubelite.NotFound, kubelite.APIError)
    assert issubclass(kubelite.APIError, kubelite.KubeliteError)
    assert issubclass(kubelite.WaitTimeout, TimeoutError)
    assert callable(kubelite.kustomize)


def test_help_shows_the_api():
    text = pydoc.render_doc(kubelite, renderer=pydoc.plaintext)
    for word in ("kubelite.Cluster()", "kube.apply", "kubelite.connect()", "kubelite.kustomize", "NotFound"):
        assert word in text
    methods = pydoc.render_doc(kubelite.Cluster, renderer=pydoc.plaintext)
    for method in ("apply(", "diff(", "wait(", "snapshot(", "serve(", "advance("):
        assert method in methods


def test_import_kubelite_loads_only_the_package():
    code = "import sys, json, kubelite; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert [m for m in loaded if m.startswith("kubelite")] == ["kubelite"]
    assert not {"httpx", "yaml", "uvicorn", "cryptography"} & set(loaded)
