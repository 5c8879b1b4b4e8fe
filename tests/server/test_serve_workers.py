"""`kubelite serve --workers N`: several processes on one port and one store behave as one server."""
from __future__ import annotations

import json
import pathlib
import ssl
import subprocess
import sys
import threading
import time

import httpx
import pytest

from test_serve_support import serving


def _children(pid: int) -> list[int]:
    path = pathlib.Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _client(server) -> httpx.Client:
    # A new connection per request (no keep-alive): the kernel spreads them over the workers.
    return httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                        headers={"Authorization": f"Bearer {server.token}", "Connection": "close"},
                        limits=httpx.Limits(max_keepalive_connections=0), timeout=30)


def test_workers_share_the_port_and_the_store(tmp_path):
    with serving(tmp_path, "--workers=2") as server:
        workers = [server.proc.pid] + _children(server.proc.pid)
        assert len(workers) == 2
        path = "/api/v1/namespaces/default/configmaps"
        with _client(server) as client:
            for i in range(20):
                client.post(path, json={"metadata": {"name": f"w{i}"}, "data": {"v": str(i)}}).raise_for_status()
                # Read-after-write on a new connection, whichever worker accepts it.
                assert client.get(f"{path}/w{i}").json()["data"] == {"v": str(i)}
                names = [item["metadata"]["name"] for item in client.get(path).json()["items"]]
                assert f"w{i}" in names
            # One Lease holder runs the controllers for all of them.
            lease = client.get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager")
            assert lease.status_code == 200
    for pid in workers:
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"worker {pid} outlived the server"


def test_a_watch_sees_writes_made_through_every_worker(tmp_path):
    with serving(tmp_path, "--workers=2", "--controllers=-*") as server:
        path = "/api/v1/namespaces/default/configmaps"
        seen: list[str] = []
        opened = threading.Event()

        def watch():
            with _client(server) as client, client.stream(
                    "GET", path, params={"watch": "1", "timeoutSeconds": "20"}) as response:
                opened.set()
                for line in response.iter_lines():
                    if line:
                        seen.append(json.loads(line)["object"]["metadata"]["name"])
                        if len(seen) == 10:
                            return

        thread = threading.Thread(target=watch)
        thread.start()
        assert opened.wait(20)
        with _client(server) as client:
            for i in range(10):
                client.post(path, json={"metadata": {"name": f"e{i}"}}).raise_for_status()
        thread.join(30)
        assert seen == [f"e{i}" for i in range(10)]


def test_workers_refuse_a_memory_store(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kubelite", "serve", "--data-dir", str(tmp_path / "d"),
                             "--port", "0", "--storage=memory://", "--workers=2"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and "--workers" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_workers_must_be_a_count(tmp_path, value):
    result = subprocess.run([sys.executable, "-m", "kubelite", "serve", "--data-dir", str(tmp_path / "d"),
                             "--port", "0", f"--workers={value}"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "--workers" in result.stderr and "Traceback" not in result.stderr


def test_concurrent_patches_through_both_workers_all_apply(tmp_path):
    """A patch without a resourceVersion that loses a race to another worker's write is re-applied
    (kube-apiserver's GuaranteedUpdate), never a 409."""
    import concurrent.futures

    with serving(tmp_path, "--workers=2", "--controllers=-*") as server:
        path = "/api/v1/namespaces/default/configmaps"
        with _client(server) as client:
            client.post(path, json={"metadata": {"name": "shared"}}).raise_for_status()

        def patch(writer: int) -> list[int]:
            statuses = []
            with httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                              headers={"Authorization": f"Bearer {server.token}"}, timeout=30) as client:
                for i in range(40):
                    response = client.patch(f"{path}/shared", content=json.dumps({"data": {f"w{writer}": str(i)}}),
                                            headers={"content-type": "application/strategic-merge-patch+json"})
                    statuses.append(response.status_code)
            return statuses

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            statuses = [code for codes in pool.map(patch, range(16)) for code in codes]
        assert set(statuses) == {200}
        with _client(server) as client:
            assert client.get(f"{path}/shared").json()["data"] == {f"w{w}": "39" for w in range(16)}
