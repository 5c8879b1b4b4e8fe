"""Compaction for clusters that live only as long as a command (the embedded CLI): at most once
per interval, at the revision recorded one interval earlier, as a serving Compactor does."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.storage.compactor import DEFAULT_INTERVAL


def _write_configmaps(cluster: Cluster, names) -> None:
    with cluster.http_client() as http:
        for name in names:
            r = http.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": name}})
            assert r.status_code == 201, r.text


def test_compacts_once_an_interval_at_the_revision_seen_an_interval_before(tmp_path):
    clock = FakeClock()
    mark = tmp_path / "compaction"
    with Cluster(str(tmp_path / "state.db"), clock=clock, controllers=False) as cluster:
        assert cluster.compact_if_due(mark) is None  # the first command only marks
        marked = json.loads(mark.read_text())["revision"]
        assert os.stat(mark).st_mode & 0o777 == 0o600
        _write_configmaps(cluster, ["a", "b"])
        clock.advance(DEFAULT_INTERVAL / 2)
        assert cluster.compact_if_due(mark) is None  # not yet due
        clock.advance(DEFAULT_INTERVAL / 2 + 1)
        assert cluster.compact_if_due(mark) == marked
        assert cluster.store.compact_revision() == marked
        newer = json.loads(mark.read_text())["revision"]
        assert newer == cluster.store.current_revision() > marked
        _write_configmaps(cluster, ["c"])
        clock.advance(DEFAULT_INTERVAL + 1)
        assert cluster.compact_if_due(mark) == newer
        with cluster.http_client() as http:  # history older than the compaction is gone, state is not
            names = [i["metadata"]["name"] for i in http.get("/api/v1/namespaces/default/configmaps").json()["items"]]
            assert {"a", "b", "c"} <= set(names)


def test_an_unreadable_mark_starts_again_and_a_broken_store_never_fails_the_command(tmp_path):
    mark = tmp_path / "compaction"
    mark.write_text("not json")
    with Cluster(str(tmp_path / "state.db"), clock=FakeClock(), controllers=False) as cluster:
        assert cluster.compact_if_due(mark) is None
        assert "revision" in json.loads(mark.read_text())
        assert cluster.compact_if_due(tmp_path / "missing-dir" / "compaction") is None  # OSError: skipped


def test_the_embedded_cli_compacts_its_store(tmp_path):
    home = tmp_path / "home"
    env = dict(os.environ, KUBELITE_HOME=str(home), HOME=str(tmp_path))
    env.pop("KUBECONFIG", None)

    def kubelite(*args):
        done = subprocess.run([sys.executable, "-m", "kubelite", *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done

    kubelite("create", "configmap", "one")
    mark = json.loads((home / "compaction").read_text())
    # as if the interval had passed since that command
    (home / "compaction").write_text(json.dumps({"time": mark["time"] - DEFAULT_INTERVAL - 1,
                                                "revision": mark["revision"]}))
    kubelite("create", "configmap", "two")
    with Cluster(str(home / "state.db"), controllers=False) as cluster:
        assert cluster.store.compact_revision() == mark["revision"]
    assert kubelite("get", "configmap", "one", "two", "-o", "name").stdout == "configmap/one\nconfigmap/two\n"
