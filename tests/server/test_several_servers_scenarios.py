"""The recorded public scenarios, with real kubectl, against two `kubelite serve` behind one etcd,
alternating between the servers at every step (controllers run in whichever holds the Lease).

The recording (kubectl v1.32 against kube-apiserver 1.32.13) is the reference. So that this test
measures what two servers change and not the state of single-server fidelity, each scenario is also
replayed against one server (the served-kubectl mode of tests/scenarios) and every step that
matches the recording there must match it with two servers too.
"""
from __future__ import annotations

import concurrent.futures
import json
import pathlib
import sys
import tempfile

import pytest

from etcd_support import Etcd, have_etcd
from test_serve_support import KUBECTL, Served

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "scenarios"))
from scenario_modes import DATA, _base_env, load, recorded_scenarios, replay, run_mode, same_as_recording  # noqa: E402

pytestmark = [
    pytest.mark.kubectl,
    pytest.mark.skipif(not pathlib.Path(KUBECTL).exists(), reason="needs /usr/bin/kubectl"),
    pytest.mark.skipif(not have_etcd(), reason="etcd is not installed (apt-get install etcd-server)"),
]
ALTERNATE = pathlib.Path(__file__).parent / "alternate_kubectl.py"


def replay_on_two_servers(path: pathlib.Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="scenario-two-") as tmp, Etcd() as etcd:
        tmp = pathlib.Path(tmp)
        servers = [Served(tmp / f"s{i}", tmp / f"s{i}.kubeconfig", args=("--storage", etcd.url)) for i in range(2)]
        try:
            for server in servers:
                server.start()
            argv = [sys.executable, str(ALTERNATE), str(tmp / "calls"), str(tmp / "kube-cache"),
                    *(str(s.kubeconfig) for s in servers), "--"]
            return replay(path, argv, _base_env(tmp / "home"))
        finally:
            for server in servers:
                server.stop()


@pytest.mark.parametrize("path", recorded_scenarios(), ids=lambda p: p.stem)
def test_two_servers_on_one_etcd_replay_as_one_server_does(path):
    expected = json.loads((DATA / "expected" / f"{path.stem}.json").read_text())
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        one = pool.submit(run_mode, path, "served-kubectl")
        two = pool.submit(replay_on_two_servers, path)
        one, two = one.result(), two.result()
    assert len(two["steps"]) == len(expected["steps"]) == len(load(path)["steps"])
    matched, regressions = 0, []
    for want, single, double in zip(expected["steps"], one["steps"], two["steps"]):
        if not same_as_recording(want, single)[0]:
            continue  # differs with one server already: not this test's business
        matched += 1
        good, why = same_as_recording(want, double)
        if not good:
            regressions.append(f"step {want['i']} {want['run']}: {why}\n"
                               f"--- one server\n{single['stdout'] + single['stderr']}"
                               f"--- two servers\n{double['stdout'] + double['stderr']}")
    assert matched, "no step matched the recording even with one server"
    assert not regressions, "\n\n".join(regressions)
